import fs from 'node:fs';
import net from 'node:net';
import { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { DatabaseClosedError } from '../../store/database.js';
import type { Store } from '../../store/store.js';
import { failureOf } from '../command.js';
import type { AdminEvent, AdminServices, ChannelOperation } from './operation.js';
import { adminSocketName, linkAdminSocket, removeAdminSocket, socketBindPath } from './socket-path.js';
import {
  line,
  MAX_REQUEST_BYTES,
  PROTOCOL_VERSION,
  WireError,
  type AdminAnswer,
  type AdminRequest,
  type WireFailure,
} from './wire.js';

export interface AdminChannelOptions {
  readonly dbPath: string;
  readonly env: NodeJS.ProcessEnv;
  readonly db: Store;
  readonly services: AdminServices;
  readonly operations: readonly ChannelOperation[];
  /** The server's version, named when a CLI asks for a command this server does not know. */
  readonly version: string;
  readonly logError: (error: unknown) => void;
}

export interface AdminChannel {
  /** Where the socket is bound (beside the database, or the short path `<db>.admin.sock` links to). */
  readonly path: string;
  /** Stops taking commands and removes the socket (call it while still holding the file); those already running go on. */
  stopAccepting(): void;
  /** Stops accepting, waits up to `timeoutMs` for running commands, cuts the rest. */
  close(timeoutMs: number): Promise<void>;
}

/**
 * The server's end of the admin channel: a Unix socket beside the database file, mode 0600 (only
 * this user may connect; Linux checks write permission on the socket file), never a TCP port.
 * Each connection carries one command, run by the same operation the CLI runs on its own store,
 * with the server's services. Call only while holding the database file: a socket already there
 * is then a leftover of a server that died, and is replaced.
 */
export async function listenAdminChannel(options: AdminChannelOptions): Promise<AdminChannel> {
  const operations = new Map(options.operations.map((operation) => [operation.name, operation]));
  const name = adminSocketName(options.dbPath);
  removeAdminSocket(options.dbPath);
  const bindPath = socketBindPath(options.dbPath, options.env);
  if (bindPath !== name && fs.lstatSync(bindPath, { throwIfNoEntry: false })?.isSocket()) fs.rmSync(bindPath);

  const running = new Set<Promise<void>>();
  const sockets = new Set<net.Socket>();
  let closing = false;
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    // A client that went away: its command still ends (a write commits or not), its answer is dropped.
    socket.on('error', () => undefined);
    const handled: Promise<void> = serveConnection(socket, { ...options, operations, isClosing: () => closing })
      .catch(options.logError)
      .finally(() => running.delete(handled));
    running.add(handled);
  });
  await bind(server, bindPath);
  try {
    fs.chmodSync(bindPath, 0o600);
    linkAdminSocket(options.dbPath, bindPath);
  } catch (error) {
    server.close();
    fs.rmSync(bindPath, { force: true });
    throw error;
  }

  // The socket goes while this server still holds the file: after that a new server may bind its own.
  const stopAccepting = () => {
    if (closing) return;
    closing = true;
    server.close();
    removeAdminSocket(options.dbPath);
  };
  return {
    path: bindPath,
    stopAccepting,
    async close(timeoutMs) {
      stopAccepting();
      const timer = new Promise((resolve) => setTimeout(resolve, timeoutMs).unref());
      await Promise.race([Promise.all(running), timer]);
      for (const socket of sockets) socket.destroy();
    },
  };
}

/** Binds with umask 0177, so the socket is never, even for an instant, open to others (chmod follows anyway). */
function bind(server: net.Server, bindPath: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    const previous = process.umask(0o177);
    try {
      // A Unix socket is bound inside listen() itself, before it returns.
      server.listen(bindPath, () => {
        server.off('error', reject);
        resolve();
      });
    } finally {
      process.umask(previous);
    }
  });
}

interface ConnectionContext extends Omit<AdminChannelOptions, 'operations'> {
  readonly operations: ReadonlyMap<string, ChannelOperation>;
  isClosing(): boolean;
}

async function serveConnection(socket: net.Socket, context: ConnectionContext): Promise<void> {
  const channel = answerChannel(socket);
  let answer: AdminAnswer;
  try {
    answer = await execute(await readRequest(socket), channel, context);
  } catch (error) {
    answer = {
      ok: false,
      error: error instanceof WireError ? { message: error.message, exitCode: 1 } : failureOf(error),
    };
  }
  if (channel.destroyed) return;
  channel.end(answer);
  await finished(channel).catch(() => undefined);
}

async function execute(request: AdminRequest, channel: Writable, context: ConnectionContext): Promise<AdminAnswer> {
  if (request.version !== PROTOCOL_VERSION) {
    return failure(
      `the server (adreport ${context.version}) speaks admin protocol ${PROTOCOL_VERSION}, this command ${request.version}; use the same version of adreport as the server`,
    );
  }
  const operation = context.operations.get(request.command);
  if (!operation)
    return failure(
      `the server (adreport ${context.version}) has no admin command "${request.command}"; use the same version of adreport as the server`,
    );
  // Bytes reach the channel only through this stream, so they keep their order with events and the answer.
  const output = new Writable({
    highWaterMark: 256 * 1024,
    write: (chunk: Buffer, _encoding, callback) => channel.write(chunk, callback),
  });
  try {
    const result = await operation.run(
      {
        db: context.db,
        services: context.services,
        progress: (event: AdminEvent) => {
          if (!channel.destroyed) channel.write(event);
        },
        output,
      },
      request.input,
    );
    output.end();
    await finished(output);
    return { ok: true, result };
  } catch (error) {
    output.destroy();
    if (error instanceof DatabaseClosedError && context.isClosing())
      return failure('the server stopped while running the command; run it again');
    return { ok: false, error: failureOf(error) };
  }
}

function failure(message: string, exitCode = 1): AdminAnswer {
  const error: WireFailure = { message, exitCode };
  return { ok: false, error };
}

/** The request: one JSON line, at most MAX_REQUEST_BYTES. */
function readRequest(socket: net.Socket): Promise<AdminRequest> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let length = 0;
    const onData = (chunk: Buffer) => {
      const newline = chunk.indexOf(10);
      const part = newline < 0 ? chunk : chunk.subarray(0, newline);
      length += part.length;
      parts.push(part);
      if (length > MAX_REQUEST_BYTES) return done(new WireError(`the request exceeds ${MAX_REQUEST_BYTES} bytes`));
      if (newline >= 0) done(undefined, Buffer.concat(parts, length).toString('utf8'));
    };
    const onEnd = () => done(new WireError('the request ended before its line did'));
    const done = (error: Error | undefined, text?: string) => {
      socket.off('data', onData);
      socket.off('end', onEnd);
      if (error) return reject(error);
      try {
        const value = JSON.parse(text!) as Partial<AdminRequest> | null;
        if (
          typeof value !== 'object' ||
          value === null ||
          typeof value.command !== 'string' ||
          typeof value.version !== 'number'
        )
          throw new Error();
        resolve({ version: value.version, command: value.command, input: value.input });
      } catch {
        reject(new WireError('the request is not a JSON line {version, command, input}'));
      }
    };
    socket.on('data', onData);
    socket.on('end', onEnd);
  });
}

/**
 * Everything the server says on one connection, in order: events, byte frames, the answer.
 * Backpressure is the socket's: a write waits while its buffer is full.
 */
function answerChannel(socket: net.Socket): Writable {
  const channel = new Writable({
    objectMode: true,
    // At most 4 items (export chunks are <= 64 KiB) wait here for a slow client.
    highWaterMark: 4,
    write(item: Buffer | AdminEvent | AdminAnswer, _encoding, callback) {
      if (socket.destroyed) return callback(new Error('the admin client went away'));
      let flowing: boolean;
      if (Buffer.isBuffer(item)) {
        if (item.length === 0) return callback();
        socket.write(line({ bytes: item.length }));
        flowing = socket.write(item);
      } else {
        flowing = socket.write(line(item));
      }
      if (flowing) return callback();
      const settle = (error?: Error) => {
        socket.off('drain', onDrain);
        socket.off('close', onClose);
        callback(error);
      };
      const onDrain = () => settle();
      const onClose = () => settle(new Error('the admin client went away'));
      socket.on('drain', onDrain);
      socket.on('close', onClose);
    },
    final(callback) {
      socket.end(() => callback());
    },
  });
  channel.on('error', () => undefined);
  socket.on('close', () => {
    if (!channel.writableFinished) channel.destroy(new Error('the admin client went away'));
  });
  return channel;
}
