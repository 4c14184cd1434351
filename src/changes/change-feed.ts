import { ApiError, badRequest } from '../shared/errors.js';
import type { Executor } from '../store/database.js';
import type { Store } from '../store/store.js';
import { CURSOR_CLOCK_SKEW_MS, CURSOR_VALID_MS, type ChangeCursor, type ChangeCursors } from './change-cursor.js';
import { purgeChangesBefore, type ChangeKind } from './change-log.js';

/** One listed change: what to pull again. Null platform account or account: all of them; null days: all days. */
export interface Change {
  readonly platformAccountId: number | null;
  readonly accountId: number | null;
  readonly firstDay: string | null;
  readonly lastDay: string | null;
  readonly kind: ChangeKind;
  readonly changedAt: string;
}

export interface ChangePage {
  readonly changes: Change[];
  /** Where the next call starts; also when the page is empty (keep it, it stays valid seven days). */
  readonly nextCursor: string;
  /** More changes are there already: call again with nextCursor right away. */
  readonly hasMore: boolean;
}

/** Rows are kept as long as a cursor is valid. */
export const CHANGE_RETENTION_MS = CURSOR_VALID_MS;

/**
 * The organization's change feed: its own rows and the shared ones (FX rates), in id order, which
 * is commit order (one writer). A cursor is refused with 410 when it is older than seven days or
 * when the purge has removed rows it had not listed yet: the client must resync, never miss data.
 */
export class ChangeFeed {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Store,
    private readonly now: () => Date,
    private readonly cursors: ChangeCursors,
  ) {}

  /** Purges now and then every `everyMs` (a purge is one short write); `onError` hears a failed one. */
  async start(everyMs: number, onError: (error: unknown) => void): Promise<void> {
    await this.purge();
    this.timer = setInterval(() => void this.purge().catch(onError), everyMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  async list(organizationId: number, since: string | undefined, limit: number): Promise<ChangePage> {
    const nowMs = this.now().getTime();
    const cursor = since === undefined ? undefined : this.checkedCursor(since, organizationId, nowMs);
    return this.db.read(async (r) => {
      const { purgedThrough, lastIssued } = await feedBounds(r, organizationId);
      // Without a cursor: from the oldest change kept, i.e. after the last one purged.
      const afterId = cursor ? checkedAgainst(cursor, purgedThrough, lastIssued) : purgedThrough;
      const rows = await r.all<ChangeRow>(
        `SELECT id, adplatform_account_id AS "platformAccountId", account_id AS "accountId",
                strftime(first_day, '%Y-%m-%d') AS "firstDay", strftime(last_day, '%Y-%m-%d') AS "lastDay", kind,
                strftime(changed_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS "changedAt"
           FROM changes WHERE (organization_id = $1 OR organization_id IS NULL) AND id > $2 ORDER BY id LIMIT $3`,
        [organizationId, afterId, limit + 1],
      );
      const page = rows.slice(0, limit);
      const lastId = page.length > 0 ? page[page.length - 1]!.id : afterId;
      return {
        changes: page.map(({ id: _id, ...change }) => change),
        nextCursor: this.cursors.seal({ organizationId, lastId, issuedAtMs: nowMs }),
        hasMore: rows.length > limit,
      };
    });
  }

  private checkedCursor(since: string, organizationId: number, nowMs: number): ChangeCursor {
    const opened = this.cursors.open(since, organizationId);
    if (opened.kind === 'unsealed')
      throw cursorExpired(
        'Cursors of the first, unsealed format (before issue 36) are no longer accepted, whatever their age.',
      );
    // Another organization's cursor, a changed or made-up one: as unusable, and the answer says no more.
    if (opened.kind === 'invalid')
      throw invalidCursor('since is not a cursor this API issued to your organization; pass a nextCursor unchanged.');
    const { cursor } = opened;
    if (cursor.issuedAtMs > nowMs + CURSOR_CLOCK_SKEW_MS)
      throw invalidCursor(
        `since was issued ${new Date(cursor.issuedAtMs).toISOString()}, after now (${new Date(nowMs).toISOString()}): a cursor from the future is not one to resume from.`,
      );
    if (nowMs - cursor.issuedAtMs > CURSOR_VALID_MS)
      throw cursorExpired(
        `The cursor was issued ${new Date(cursor.issuedAtMs).toISOString()}: cursors are valid seven days.`,
      );
    return cursor;
  }

  /** Deletes changes older than the retention (start() runs it). */
  purge(): Promise<number> {
    const cutoff = new Date(this.now().getTime() - CHANGE_RETENTION_MS);
    return this.db.write('no-report-data', (tx) => purgeChangesBefore(tx, cutoff));
  }
}

interface ChangeRow extends Change {
  readonly id: number;
}

function invalidCursor(message: string): ApiError {
  return badRequest('invalid_cursor', message, [{ field: 'since', code: 'invalid_cursor', message }]);
}

function cursorExpired(message: string): ApiError {
  return new ApiError(410, 'cursor_expired', `${message} Start again without since (a full resync).`, [
    { field: 'since', code: 'cursor_expired', message },
  ]);
}

/**
 * The last id the purge removed from the organization's feed, and the last id ever issued (kept
 * or purged). Both only grow, so a cursor never legitimately lies outside them.
 */
async function feedBounds(r: Executor, organizationId: number): Promise<{ purgedThrough: number; lastIssued: number }> {
  const row = await r.one<{ purgedThrough: number; lastIssued: number }>(
    `SELECT coalesce((SELECT max(purged_through) FROM change_purges WHERE organization_id IN ($1, 0)), 0) AS "purgedThrough",
            greatest(coalesce((SELECT max(id) FROM changes), 0), coalesce((SELECT max(purged_through) FROM change_purges), 0)) AS "lastIssued"`,
    [organizationId],
  );
  return row ?? { purgedThrough: 0, lastIssued: 0 };
}

/** The id the cursor lists after; 410 when rows after it were purged, or it is ahead of every row (a restored database). */
function checkedAgainst(cursor: ChangeCursor, purgedThrough: number, lastIssued: number): number {
  if (cursor.lastId < purgedThrough)
    throw cursorExpired('Changes after this cursor were deleted (changes are kept seven days).');
  if (cursor.lastId > lastIssued)
    throw cursorExpired('The cursor is ahead of every change this service holds (was its database restored?).');
  return cursor.lastId;
}
