import type net from 'node:net';
import tls from 'node:tls';
import type { Duplex } from 'node:stream';
import { fatal } from './errors.js';
import { decodeStartupPacket, ProtocolViolation } from './frontend-messages.js';
import { MessageReader } from './message-reader.js';

/** PostgreSQL's MAX_STARTUP_PACKET_LENGTH. */
const MAX_STARTUP_PACKET = 10_000;

export interface Started {
  readonly stream: Duplex;
  readonly reader: MessageReader;
  readonly encrypted: boolean;
  readonly major: number;
  readonly minor: number;
  readonly parameters: Readonly<Record<string, string>>;
}

export interface NegotiationContext {
  readonly secureContext: tls.SecureContext;
  readonly cancel: (processId: number, secretKey: number) => void;
  /** Every stream the connection goes through (the raw socket, then its TLS wrapper), so a timeout can destroy the outer one. */
  readonly onStream: (stream: Duplex) => void;
}

/**
 * The packets before the StartupMessage (ProcessStartupPacket in PostgreSQL): an SSLRequest is
 * answered 'S' and the socket becomes TLS, a GSSENCRequest 'N' (no GSSAPI here), a CancelRequest
 * (plain, as libpq and pgJDBC send it, or after TLS) is acted on and the connection closed without
 * a word. Resolves with the StartupMessage, or null when there is none to answer.
 */
export async function negotiate(socket: net.Socket, context: NegotiationContext): Promise<Started | null> {
  let stream: Duplex = socket;
  let reader = new MessageReader(socket);
  let encrypted = false;
  context.onStream(socket);
  for (;;) {
    const body = await reader.readStartupPacket(MAX_STARTUP_PACKET);
    if (!body) return null;
    const packet = decodeStartupPacket(body);
    switch (packet.kind) {
      case 'ssl': {
        if (encrypted) throw new ProtocolViolation('SSLRequest over an encrypted connection');
        // Bytes sent before the handshake would be read as if encrypted (CVE-2021-23214): refused, as PostgreSQL does.
        if (reader.detach().length > 0) throw fatal('08P01', 'received unencrypted data after SSL request');
        socket.write('S');
        const secure = new tls.TLSSocket(socket, { isServer: true, secureContext: context.secureContext });
        context.onStream(secure);
        stream = secure;
        reader = new MessageReader(secure);
        encrypted = true;
        break;
      }
      case 'gss':
        if (encrypted) throw new ProtocolViolation('GSSENCRequest over an encrypted connection');
        stream.write('N');
        break;
      case 'cancel':
        context.cancel(packet.processId, packet.secretKey);
        stream.end();
        return null;
      case 'startup':
        return { stream, reader, encrypted, ...packet };
    }
  }
}
