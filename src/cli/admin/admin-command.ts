import type { Writable } from 'node:stream';
import { printResult, type Command, type CommandContext } from '../command.js';
import { dispatch } from './dispatch.js';
import { channelOperation, type AdminEvent, type AdminOperation, type ChannelOperation } from './operation.js';

/** The CLI's side of one run: shows progress, takes the bytes of a file, prints the result. */
export interface Presenter<R> {
  onEvent?(event: AdminEvent): void;
  readonly output?: Writable;
  /** Prints the result; returns the exit code. */
  done(result: R): number | Promise<number>;
  /** The command failed: undo what this side started (a partial file). */
  failed?(): void;
}

export interface AdminCommandSpec<I, R> extends Omit<Command, 'run'> {
  /** True only for a command that may start a new database file (`orgs create`). */
  readonly createsFile?: boolean;
  /** Reads and checks the arguments, in the CLI process: a usage error (exit 2) touches nothing. */
  parse(context: CommandContext): I | Promise<I>;
  readonly operation: AdminOperation<I, R>;
  /** Default: print the result, exit 0. */
  present?(context: CommandContext, input: I): Presenter<R>;
}

export interface AdminCommand extends Command {
  /** What `serve` runs when this command arrives over the admin channel. */
  readonly operation: ChannelOperation;
}

/**
 * An admin command: arguments parsed here, the operation run where the database is (this
 * process, or the server holding the file), the same output either way.
 */
export function adminCommand<I, R>(spec: AdminCommandSpec<I, R>): AdminCommand {
  const { parse, operation, present, createsFile = false, notes = [], ...command } = spec;
  return {
    ...command,
    notes: [
      'Also while a server holds the file: the command then runs in that server, sent over its admin socket',
      '<db>.admin.sock, with the same output.',
      ...(createsFile ? [] : ['A --db that does not exist is refused (nothing is created).']),
      ...notes,
    ],
    operation: channelOperation(operation),
    async run(context) {
      const input = await parse(context);
      const presenter: Presenter<R> = present?.(context, input) ?? {
        done: (result) => (printResult(context, result), 0),
      };
      try {
        const result = await dispatch(context, { operation, createsFile }, input, {
          onEvent: (event) => presenter.onEvent?.(event),
          output: presenter.output,
        });
        return await presenter.done(result);
      } catch (error) {
        presenter.failed?.();
        throw error;
      }
    },
  };
}
