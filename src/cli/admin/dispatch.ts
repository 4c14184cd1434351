import fs from 'node:fs';
import { Writable } from 'node:stream';
import type { Store } from '../../store/store.js';
import { CliError, type CommandContext } from '../command.js';
import { callServer, ServerUnreachableError, type AnswerHandlers } from './channel-client.js';
import { runOperation, type AdminOperation } from './operation.js';
import { locateAdminSocket, removeAdminSocket } from './socket-path.js';

export interface DispatchTarget<I, R> {
  readonly operation: AdminOperation<I, R>;
  /** Only `orgs create` starts a new file; the others need data that must be there already. */
  readonly createsFile: boolean;
}

/**
 * Runs an admin operation where the database is: in this process when no other holds the file,
 * else in the server holding it, over its admin socket. A socket nobody answers on is a leftover
 * (the file was free, so it was opened here and the socket removed) or belongs to a process that
 * does not serve the channel (then the one-line "held by" error).
 */
export async function dispatch<I, R>(
  context: CommandContext,
  target: DispatchTarget<I, R>,
  input: I,
  handlers: AnswerHandlers,
): Promise<R> {
  const { dbPath } = context;
  if (context.storeUrl !== undefined) {
    // PostgreSQL serves any number of processes: the command runs here, beside running replicas.
    const { openPostgresAdminStore } = await import('../admin-store.js');
    return runHere(await openPostgresAdminStore(context.storeUrl), context, target.operation, input, handlers);
  }
  // Before anything touches the disk: opening a file that is not there would create it.
  if (!target.createsFile && !fs.existsSync(dbPath))
    throw new CliError(`${dbPath} does not exist; check --db or ADREPORT_DB`);
  // Twice at most: a server that stops between the two steps frees the file for the second try.
  // The store (DuckDB) loads only for a command that reaches this point, not for --help or usage
  // errors; opening the file is how a server holding it is found.
  const [{ openAdminStore }, { DatabaseLockedError }] = await Promise.all([
    import('../admin-store.js'),
    import('../../store/database.js'),
  ]);
  for (let attempt = 1; ; attempt++) {
    let db: Store;
    try {
      db = await openAdminStore(dbPath);
    } catch (error) {
      if (!(error instanceof DatabaseLockedError)) throw error;
      const socket = locateAdminSocket(dbPath);
      if (socket === undefined) throw error;
      try {
        // The server ran the same operation; its result is this type, as JSON.
        return (await callServer(socket, target.operation.name, input, handlers)) as R;
      } catch (failure) {
        if (!(failure instanceof ServerUnreachableError)) throw failure;
        if (attempt >= 2) throw error;
        continue;
      }
    }
    return runHere(db, context, target.operation, input, handlers);
  }
}

async function runHere<I, R>(
  db: Store,
  context: CommandContext,
  operation: AdminOperation<I, R>,
  input: I,
  handlers: AnswerHandlers,
): Promise<R> {
  try {
    // This process holds the file, so no server answers on a socket left beside it.
    if (context.storeUrl === undefined) removeAdminSocket(context.dbPath);
    const { LocalServices } = await import('./local-services.js');
    const services = new LocalServices(db, context.io);
    try {
      // Through the same schema check as in the server, so a mismatch shows here too.
      return await runOperation(
        operation,
        { db, services, progress: (event) => handlers.onEvent(event), output: handlers.output ?? noOutput() },
        input,
      );
    } finally {
      await services.close();
    }
  } finally {
    await db.close();
  }
}

function noOutput(): Writable {
  return new Writable({ write: (_chunk, _encoding, callback) => callback(new Error('this command writes no file')) });
}
