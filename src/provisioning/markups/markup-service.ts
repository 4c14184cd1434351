import { recordChange } from '../../changes/change-log.js';
import { representationTag, type Precondition } from '../../shared/entity-tag.js';
import { notFound, unprocessable } from '../../shared/errors.js';
import type { Executor } from '../../store/database.js';
import type { Store } from '../../store/store.js';
import { accountExists } from '../accounts/account-store.js';
import type { MarkupCreate } from './markup-schema.js';
import { deleteMarkup, getMarkup, insertMarkup, listMarkups, overlappingMarkups, type Markup } from './markup-store.js';

export type { Markup } from './markup-store.js';

/** The strong ETag of a markup period. */
export function markupTag(markup: Markup): string {
  return representationTag(markup);
}

/**
 * Markup periods of an account (supplement 3): cost x (1 + rate) on the days of the period.
 * Periods of one account never overlap: the check and the insert run in one transaction of the
 * single writer, so two concurrent requests cannot both pass it.
 */
export class MarkupService {
  constructor(private readonly db: Store) {}

  list(
    organizationId: number,
    accountId: number,
    page: { limit: number; offset: number },
  ): Promise<{ total: number; markups: Markup[] }> {
    return this.db.read(async (r) => {
      await requireAccount(r, organizationId, accountId);
      return listMarkups(r, organizationId, accountId, page);
    });
  }

  get(organizationId: number, accountId: number, markupId: number): Promise<Markup> {
    return this.db.read(async (r) => {
      await requireAccount(r, organizationId, accountId);
      const markup = await getMarkup(r, organizationId, accountId, markupId);
      if (!markup) throw markupNotFound(accountId, markupId);
      return markup;
    });
  }

  create(organizationId: number, accountId: number, input: MarkupCreate): Promise<Markup> {
    const period = { rate: input.rate, startDate: input.startDate, endDate: input.endDate ?? null };
    return this.db.write({ organizationId }, async (tx) => {
      await requireAccount(tx, organizationId, accountId);
      const overlapping = await overlappingMarkups(tx, organizationId, accountId, period.startDate, period.endDate);
      if (overlapping.length > 0) {
        const ids = overlapping.map((m) => m.id).join(', ');
        throw unprocessable(
          `The period ${describe(period)} overlaps markup${overlapping.length > 1 ? 's' : ''} ${ids} of account ${accountId}; periods of one account must not overlap.`,
          overlapping.map((m) => ({
            field: 'markup',
            code: 'overlapping_period',
            message: `overlaps markup ${m.id} (${describe(m)})`,
          })),
        );
      }
      const markup = await insertMarkup(tx, organizationId, accountId, period);
      await recordMarkupChange(tx, organizationId, accountId, markup);
      return markup;
    });
  }

  delete(organizationId: number, accountId: number, markupId: number, precondition?: Precondition): Promise<void> {
    return this.db.write({ organizationId }, async (tx) => {
      await requireAccount(tx, organizationId, accountId);
      if (precondition) {
        const current = await getMarkup(tx, organizationId, accountId, markupId);
        if (!current) throw markupNotFound(accountId, markupId);
        precondition(markupTag(current));
      }
      const deleted = await deleteMarkup(tx, organizationId, accountId, markupId);
      if (!deleted) throw markupNotFound(accountId, markupId);
      await recordMarkupChange(tx, organizationId, accountId, deleted);
    });
  }
}

/** The account's costWithMarkup changes on the period's days. */
function recordMarkupChange(
  tx: Executor,
  organizationId: number,
  accountId: number,
  period: { startDate: string; endDate: string | null },
): Promise<void> {
  return recordChange(tx, {
    organizationId,
    kind: 'FX_OR_MARKUP_CHANGED',
    accountId,
    firstDay: period.startDate,
    lastDay: period.endDate,
  });
}

async function requireAccount(db: Executor, organizationId: number, accountId: number): Promise<void> {
  if (!(await accountExists(db, organizationId, accountId))) throw notFound(`No account with id ${accountId}.`);
}

function markupNotFound(accountId: number, markupId: number) {
  return notFound(`Account ${accountId} has no markup with id ${markupId}.`);
}

function describe(period: { startDate: string; endDate: string | null }): string {
  return `${period.startDate} to ${period.endDate ?? 'open end'}`;
}
