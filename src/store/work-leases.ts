import os from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Executor } from './database.js';
import type { Store } from './store.js';

/** The durable queues whose rows a replica claims: the lease table's `queue` values (never user input). */
export type LeasedQueue = 'jobs' | 'report_jobs' | 'webhook_deliveries';

/** How often a replica says it is alive, and after how long without that its claims go to others. */
export const HEARTBEAT_MS = 2_000;
export const DEAD_AFTER_SECONDS = 10;
/** How often each runner looks for rows a dead replica left, and drops leases of finished rows. */
export const LEASE_SWEEP_MS = 5_000;

/**
 * Which replica runs which claimed row (issue 37). Every process beats in `replicas` (the
 * database's clock, not the service's, which tests move); a claim writes a lease naming it, in
 * the claim's transaction. A RUNNING job or report job, or a due delivery, whose lease names a
 * replica that stopped beating (kill -9, a lost machine) is free for any other: `liveLease`.
 * The embedded store has one process, so at its start every earlier lease is a dead one.
 */
export class WorkLeases {
  readonly replicaId = `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Store,
    private readonly onError: (error: unknown) => void,
  ) {}

  /**
   * Other processes may claim from the same tables (PostgreSQL). With the embedded store one
   * process owns the file: no heartbeats (each a commit, which would also expire every cached
   * statement) and no takeover sweeps, which would find this process's own claims unbeaten.
   */
  get shared(): boolean {
    return this.db.dialect.engine !== 'duckdb';
  }

  async start(): Promise<void> {
    if (!this.shared) {
      await this.db.write('no-report-data', async (tx) => {
        await tx.run('DELETE FROM work_leases');
        await tx.run('DELETE FROM replicas');
      });
      return;
    }
    await this.beat();
    this.timer = setInterval(() => this.beat().catch(this.onError), HEARTBEAT_MS);
    this.timer.unref();
  }

  /** A graceful stop: what this replica still ran is free for the others at once. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    if (!this.shared) return;
    await this.db
      .write('no-report-data', (tx) => tx.run('DELETE FROM replicas WHERE id = $1', [this.replicaId]))
      .catch(() => undefined);
  }

  private beat(): Promise<void> {
    return this.db.write('no-report-data', (tx) =>
      tx.run(
        `INSERT INTO replicas (id, started_at, seen_at) VALUES ($1, now(), now())
           ON CONFLICT (id) DO UPDATE SET seen_at = now()`,
        [this.replicaId],
      ),
    );
  }

  /** Claims `itemId` for this replica, in the claim's transaction (a dead replica's lease is replaced). */
  take(tx: Executor, queue: LeasedQueue, itemId: number): Promise<void> {
    return tx.run(
      `INSERT INTO work_leases (queue, item_id, replica_id) VALUES ($1, $2, $3)
         ON CONFLICT (queue, item_id) DO UPDATE SET replica_id = excluded.replica_id`,
      [queue, itemId, this.replicaId],
    );
  }

  /** Ends the claim, in the transaction that records the item's outcome. */
  drop(tx: Executor, queue: LeasedQueue, itemId: number): Promise<void> {
    return tx.run('DELETE FROM work_leases WHERE queue = $1 AND item_id = $2', [queue, itemId]);
  }
}

/**
 * SQL that is true while a replica that still beats holds `queue`'s lease on the row `idColumn`
 * names. `queue` is one of LeasedQueue, never user input.
 */
export function liveLease(queue: LeasedQueue, idColumn: string, exceptReplicaParam?: string): string {
  const except = exceptReplicaParam === undefined ? '' : ` AND l.replica_id <> ${exceptReplicaParam}::VARCHAR`;
  return `EXISTS (SELECT 1 FROM work_leases l JOIN replicas r ON r.id = l.replica_id
                   WHERE l.queue = '${queue}' AND l.item_id = ${idColumn}${except}
                     AND r.seen_at > now() - INTERVAL '${DEAD_AFTER_SECONDS} seconds')`;
}

/**
 * Drops `queue`'s leases on rows that are no longer claimed (finished, retried, deleted): the
 * outcome's own transaction need not know about leases. `claimedIds` is SQL (a SELECT of ids)
 * written by the caller, never user input.
 */
export function sweepLeases(tx: Executor, queue: LeasedQueue, claimedIds: string): Promise<void> {
  return tx.run(`DELETE FROM work_leases WHERE queue = '${queue}' AND item_id NOT IN (${claimedIds})`);
}
