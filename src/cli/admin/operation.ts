import type { Writable } from 'node:stream';
import type { z } from 'zod';
import type { JobService } from '../../jobs/job-service.js';
import type { StatisticsSyncSettings } from '../../jobs/statistics-sync-queue.js';
import type { PlatformDirectory } from '../../platforms/connector.js';
import type { ReportService } from '../../reporting/report-service.js';
import type { Store } from '../../store/store.js';
import { CliError } from '../command.js';

export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/**
 * What an operation may use besides the database. Inside the server these are the server's own
 * services; in the CLI's own store they are stand-ins built for the one command.
 */
export interface AdminServices {
  readonly now: () => Date;
  readonly platforms: PlatformDirectory;
  readonly reports: ReportService;
  /** The statistics settings of the process whose runner runs the jobs (the server's, or the CLI's environment). */
  readonly statistics: StatisticsSyncSettings;
  /** Queues jobs that run while the operation waits: on the server's runner, or on a runner the CLI starts for the command. */
  jobs(): Promise<JobService>;
  /** A client was disabled: the server stops accepting its tokens now. With no server running there is nobody to tell. */
  clientsDisabled(): Promise<void>;
}

/** Something an operation reports on the way, before its result (the CLI shows it on stderr). */
export interface AdminEvent {
  readonly event: string;
  readonly [field: string]: JsonValue;
}

export interface OperationContext {
  readonly db: Store;
  readonly services: AdminServices;
  progress(event: AdminEvent): void;
  /** Where an operation that produces a file writes its bytes. The operation never ends it. */
  readonly output: Writable;
}

/**
 * The part of an admin command that touches the database: the same code runs in the CLI's own
 * store or inside the server (over the admin channel), so both print the same result. Input and
 * result are plain JSON.
 */
export interface AdminOperation<I, R> {
  /** The command's words (`clients disable`), its name on the admin channel. */
  readonly name: string;
  /** Checks the input again where the operation runs: a CLI of another version may send another shape. */
  readonly input: z.ZodType<I>;
  run(context: OperationContext, input: I): Promise<R>;
}

/** An operation as the server's table holds it: any input, checked against the operation's schema first. */
export interface ChannelOperation {
  readonly name: string;
  run(context: OperationContext, input: unknown): Promise<unknown>;
}

/** The input did not match the operation's schema (a CLI of another version): a usage error. */
export class OperationInputError extends CliError {
  constructor(name: string, issue: string) {
    super(
      `the input of "${name}" does not match this version of adreport (${issue}); use the same version for the CLI and the server`,
      2,
    );
    this.name = 'OperationInputError';
  }
}

/** Checks the input against the operation's schema, then runs it: the same in the CLI and in the server. */
export function runOperation<I, R>(
  operation: AdminOperation<I, R>,
  context: OperationContext,
  input: unknown,
): Promise<R> {
  const parsed = operation.input.safeParse(input);
  if (!parsed.success)
    return Promise.reject(new OperationInputError(operation.name, parsed.error.issues[0]?.message ?? 'invalid'));
  return operation.run(context, parsed.data);
}

export function channelOperation<I, R>(operation: AdminOperation<I, R>): ChannelOperation {
  return { name: operation.name, run: (context, input) => runOperation(operation, context, input) };
}
