import net from 'node:net';
import type { Writable } from 'node:stream';
import { CliError } from '../command.js';
import type { AdminEvent } from './operation.js';
import { line, MAX_ANSWER_LINE_BYTES, PROTOCOL_VERSION, WireReader } from './wire.js';

/** Nothing answers on the socket (a leftover, or a server starting or stopping): the request was never sent. */
export class ServerUnreachableError extends Error {
  constructor(socketPath: string, cause: unknown) {
    super(`nothing answers on ${socketPath}`, { cause });
    this.name = 'ServerUnreachableError';
  }
}

export interface AnswerHandlers {
  onEvent(event: AdminEvent): void;
  /** Receives the byte frames; written with backpressure (the socket is not read while it is full). */
  readonly output: Writable | undefined;
}

const LOST =
  'the server closed the admin connection without an answer (did it stop?); check its log, then run the command again';

/**
 * Sends one command to the server over its admin socket and resolves with the result. Progress
 * and bytes go to `handlers` as they arrive; a failure of the command becomes the same CliError
 * (message, exit code) it would have been in the CLI's own store.
 */
export async function callServer(
  socketPath: string,
  command: string,
  input: unknown,
  handlers: AnswerHandlers,
): Promise<unknown> {
  const socket = net.createConnection({ path: socketPath });
  try {
    await connected(socket, socketPath);
    socket.write(line({ version: PROTOCOL_VERSION, command, input }));
    const reader = new WireReader(MAX_ANSWER_LINE_BYTES);
    try {
      for await (const chunk of socket as AsyncIterable<Buffer>) {
        for (const item of reader.push(chunk)) {
          if (item.kind === 'event') handlers.onEvent(item.event);
          else if (item.kind === 'bytes') await write(handlers.output, item.data);
          else if (item.answer.ok) return item.answer.result;
          else throw new CliError(item.answer.error.message, item.answer.error.exitCode);
        }
      }
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ECONNRESET' || code === 'EPIPE') throw new CliError(LOST);
      throw error;
    }
    throw new CliError(LOST);
  } finally {
    socket.destroy();
  }
}

function connected(socket: net.Socket, socketPath: string): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.once('connect', () => {
      socket.removeAllListeners('error');
      resolve();
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EACCES')
        reject(new CliError(`${socketPath}: permission denied; run admin commands as the user the server runs as`));
      else reject(new ServerUnreachableError(socketPath, error));
    });
  });
}

/** Waits while the output is full; fails if it was closed or failed meanwhile. */
function write(output: Writable | undefined, data: Buffer): Promise<void> {
  if (!output) return Promise.reject(new CliError('the server sent bytes to a command that writes no file'));
  if (output.destroyed) return Promise.reject(output.errored ?? new Error('the output was closed'));
  if (output.write(data)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const settle = (error?: Error) => {
      output.off('drain', onDrain);
      output.off('close', onClose);
      if (error) reject(error);
      else resolve();
    };
    const onDrain = () => settle();
    const onClose = () => settle(output.errored ?? new Error('the output was closed'));
    output.on('drain', onDrain);
    output.on('close', onClose);
  });
}
