import type { SqlAuthenticator, SqlSession } from './session.js';
import {
  authenticationOk,
  authenticationSasl,
  authenticationSaslContinue,
  authenticationSaslFinal,
  negotiateProtocolVersion,
} from './backend-messages.js';
import { utf8 } from './binary-format.js';
import { fatal } from './errors.js';
import { BodyReader, ProtocolViolation } from './frontend-messages.js';
import type { MessageReader } from './message-reader.js';
import type { Started } from './negotiation.js';
import type { Output } from './output.js';
import { beginExchange, finishExchange, mockVerifier, SCRAM_SHA_256 } from './scram.js';

/** PostgreSQL's PG_MAX_AUTH_TOKEN_LENGTH. */
const MAX_AUTH_MESSAGE = 65_535;
const PASSWORD_MESSAGE = 'p'.charCodeAt(0);
const TERMINATE_MESSAGE = 'X'.charCodeAt(0);
/** Encodings whose bytes are UTF-8's: SQL_ASCII is what libpq sends for client_encoding=auto under the C locale. */
const ACCEPTED_ENCODINGS = /^(utf-?8|unicode|sql_ascii)$/i;

export interface AuthenticationContext {
  readonly authenticator: SqlAuthenticator;
  /** Salts the fake verifiers of unknown users (scram.ts mockVerifier); one per server. */
  readonly mockSecret: Buffer;
  /** Takes a connection slot, or says there is none (max connections). */
  readonly admit: () => boolean;
  /** The client proved who it is: what remains (opening the session) is the server's own work, not the client's to time. */
  readonly proven: () => void;
}

export interface Authenticated {
  readonly user: string;
  readonly session: SqlSession;
  readonly parameters: Readonly<Record<string, string>>;
}

/**
 * From the StartupMessage to AuthenticationOk: the checks PostgreSQL makes of the packet and of
 * pg_hba (`hostssl ... scram-sha-256` is the only rule), the SASL exchange, then the session.
 * Refusals are FATAL SqlErrors for the caller to send; null means the client left mid-way.
 */
export async function authenticate(
  started: Started,
  out: Output,
  context: AuthenticationContext,
): Promise<Authenticated | null> {
  const { major, minor, parameters: sent, reader } = started;
  if (major !== 3) throw fatal('0A000', `unsupported frontend protocol ${major}.${minor}: server supports 3.0 to 3.0`);
  if (!started.encrypted)
    throw fatal('28000', 'SSL is required', { hint: 'Connect with sslmode=require (or verify-ca, verify-full).' });
  const user = sent.user;
  if (!user) throw fatal('28000', 'no PostgreSQL user name specified in startup packet');
  const encoding = sent.client_encoding;
  if (encoding !== undefined && !ACCEPTED_ENCODINGS.test(encoding))
    throw fatal('22023', `invalid value for parameter "client_encoding": "${encoding}"`, {
      hint: 'This server speaks UTF8 only.',
    });
  const unrecognized = Object.keys(sent).filter((name) => name.startsWith('_pq_.'));
  // Newer clients ask for 3.x or send protocol options: tell them what we speak and go on, as PostgreSQL 15 does.
  if (minor > 0 || unrecognized.length > 0) out.push(negotiateProtocolVersion(0, unrecognized));
  if (!context.admit()) throw fatal('53300', 'sorry, too many clients already');

  const passed = await scram(user, reader, out, context);
  if (!passed) return null;
  context.proven();

  const parameters = Object.fromEntries(Object.entries(sent).filter(([name]) => !name.startsWith('_pq_.')));
  const session = await context.authenticator.openSession({ user, database: sent.database || user, parameters });
  return { user, session, parameters };
}

/** The SCRAM-SHA-256 exchange; a wrong password and an unknown user fail alike (28P01). False when the client left. */
async function scram(
  user: string,
  reader: MessageReader,
  out: Output,
  context: AuthenticationContext,
): Promise<boolean> {
  out.push(authenticationSasl([SCRAM_SHA_256]));
  await out.flush();
  const initial = await readSaslMessage(reader);
  if (!initial) return false;
  const body = new BodyReader(initial);
  if (body.cstring() !== SCRAM_SHA_256)
    throw fatal('08P01', 'client selected an invalid SASL authentication mechanism');
  const length = body.int32();
  let clientFirst: Buffer | null = length === -1 ? null : body.bytes(length);
  body.end();
  if (clientFirst === null) {
    // No initial response: the client expects an empty challenge first (RFC 4422), which PostgreSQL sends too.
    out.push(authenticationSaslContinue(''));
    await out.flush();
    clientFirst = await readSaslMessage(reader);
    if (!clientFirst) return false;
  }

  const known = await context.authenticator.verifierOf(user);
  const verifier = known ?? mockVerifier(user, context.mockSecret);
  const exchange = beginExchange(text(clientFirst), verifier);
  out.push(authenticationSaslContinue(exchange.serverFirst));
  await out.flush();
  const clientFinal = await readSaslMessage(reader);
  if (!clientFinal) return false;
  const serverFinal = finishExchange(exchange, text(clientFinal), verifier);
  if (!known || serverFinal === undefined) throw fatal('28P01', `password authentication failed for user "${user}"`);
  out.push(authenticationSaslFinal(serverFinal));
  out.push(authenticationOk());
  return true;
}

async function readSaslMessage(reader: MessageReader): Promise<Buffer | null> {
  const message = await reader.readMessage(MAX_AUTH_MESSAGE);
  // A client without a password gives up with Terminate (or just closes): it left, nothing to answer.
  if (!message || message.type === TERMINATE_MESSAGE) return null;
  if (message.type !== PASSWORD_MESSAGE)
    throw new ProtocolViolation(`expected SASL response, got message type ${message.type}`);
  return message.body;
}

function text(bytes: Buffer): string {
  try {
    return utf8(bytes);
  } catch {
    throw fatal('08P01', 'malformed SCRAM message', { detail: 'The message is not UTF-8.' });
  }
}
