import { recordChange } from '../../changes/change-log.js';
import { representationTag, type Precondition } from '../../shared/entity-tag.js';
import { notFound, unprocessable, type ErrorDetail } from '../../shared/errors.js';
import { characterCount } from '../../shared/text-length.js';
import type { Executor } from '../../store/database.js';
import type { Store } from '../../store/store.js';
import { LABEL_NAME, LABEL_VALUE_MAX, LABELS_MAX, labelsFromRows, type Labels } from '../labels.js';
import { SINGLE_LINE, SINGLE_LINE_MESSAGE } from '../../shared/zod-rules.js';
import { clientLabels, ownerExists, writeClientLabels, type LabelOwner } from './label-store.js';

export type { LabelOwner } from './label-store.js';

/** The `labels` member of a request body as the client sent it: values are not yet checked. */
export type LabelInput = Readonly<Record<string, unknown>>;

/**
 * Names a resource keeps for itself. A campaign's group is stored as the system label
 * `sys.campaignGroup` and set only by the import, so a client label of that name (in any case,
 * which would read as the same thing) or any `sys.` name is refused rather than shadowing it.
 */
const RESERVED: Record<LabelOwner, (name: string) => boolean> = {
  account: () => false,
  campaign: (name) => name.toLowerCase() === 'campaigngroup' || name.toLowerCase().startsWith('sys.'),
};
const RESERVED_MESSAGE =
  'is reserved: campaignGroup is set when the campaign is imported, and names starting with sys. are system labels';

/** The strong ETag of a label set (the labels resource of an account or a campaign). */
export function labelsTag(labels: Labels): string {
  return representationTag(labels);
}

/**
 * Label endpoints of accounts and campaigns (supplement 3). PUT replaces the client labels, PATCH
 * is a JSON Merge Patch (RFC 7396) over them. Each write checks the result and stores it in one
 * transaction of the single writer, so a refused request changes nothing and concurrent patches of
 * one resource apply one after the other.
 */
export class LabelService {
  constructor(private readonly db: Store) {}

  get(kind: LabelOwner, organizationId: number, id: number): Promise<Labels> {
    return this.db.read(async (r) => {
      if (!(await ownerExists(r, kind, organizationId, id))) throw ownerNotFound(kind, id);
      return clientLabels(r, kind, id);
    });
  }

  replace(
    kind: LabelOwner,
    organizationId: number,
    id: number,
    input: LabelInput,
    precondition?: Precondition,
  ): Promise<Labels> {
    return this.write(kind, organizationId, id, input, false, precondition);
  }

  /** A string sets or replaces one label, null deletes one (absent is fine), other labels stay. */
  patch(
    kind: LabelOwner,
    organizationId: number,
    id: number,
    input: LabelInput,
    precondition?: Precondition,
  ): Promise<Labels> {
    return this.write(kind, organizationId, id, input, true, precondition);
  }

  private write(
    kind: LabelOwner,
    organizationId: number,
    id: number,
    input: LabelInput,
    merge: boolean,
    precondition: Precondition | undefined,
  ): Promise<Labels> {
    return this.db.write({ organizationId }, async (tx) => {
      if (!(await ownerExists(tx, kind, organizationId, id))) throw ownerNotFound(kind, id);
      const current = await clientLabels(tx, kind, id);
      precondition?.(labelsTag(current));
      // A Map, not an object: a name is data and must never reach a prototype.
      const merged = new Map<string, unknown>(merge ? Object.entries(current) : []);
      for (const [name, value] of Object.entries(input)) {
        if (merge && value === null) merged.delete(name);
        else merged.set(name, value);
      }
      const details = violations(kind, input, merged.size, merge);
      if (details.length > 0) throw unprocessable(summary(details), details);
      // Every value is a checked string now: stored ones were checked when written, new ones just now.
      const labels = new Map([...(merged as Map<string, string>)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
      const next = labelsFromRows([...labels].map(([name, value]) => ({ name, value })));
      // Unchanged labels change no report: nothing is written and the feed lists nothing.
      if (await writeClientLabels(tx, kind, id, current, next)) await recordLabelChange(tx, kind, organizationId, id);
      return next;
    });
  }
}

/**
 * Every broken rule at once, each named `labels.<name>` like the account rules. Names are checked
 * even when the value deletes, so a reserved name is refused whatever the client does with it;
 * the count is checked on the result, since a patch may add to the stored labels.
 */
function violations(kind: LabelOwner, input: LabelInput, resultSize: number, nullDeletes: boolean): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const [name, value] of Object.entries(input)) {
    const field = `labels.${name}`;
    if (RESERVED[kind](name)) details.push({ field, code: 'reserved', message: RESERVED_MESSAGE });
    else if (!LABEL_NAME.test(name)) {
      details.push({
        field,
        code: 'invalid_name',
        message: 'a label name starts with a letter and has at most 64 letters, digits and underscores',
      });
    }
    if (nullDeletes && value === null) continue;
    if (typeof value !== 'string')
      details.push({
        field,
        code: 'wrong_type',
        message: nullDeletes ? 'must be a string, or null to delete the label' : 'must be a string',
      });
    else if (characterCount(value) > LABEL_VALUE_MAX)
      details.push({ field, code: 'too_long', message: `must be at most ${LABEL_VALUE_MAX} characters` });
    else if (!SINGLE_LINE.test(value)) details.push({ field, code: 'control_character', message: SINGLE_LINE_MESSAGE });
  }
  if (resultSize > LABELS_MAX)
    details.push({ field: 'labels', code: 'too_many', message: `at most ${LABELS_MAX} labels, not ${resultSize}` });
  return details;
}

function summary(details: readonly ErrorDetail[]): string {
  const rules = details.length === 1 ? 'a rule' : `${details.length} rules`;
  return `The request breaks ${rules}: ${details.map((d) => `${d.field}: ${d.message}`).join('; ')}.`;
}

function ownerNotFound(kind: LabelOwner, id: number) {
  return notFound(`No ${kind} with id ${id}.`);
}

/** Reports show labels on every day: an account's for that account, a campaign's for its platform account. */
async function recordLabelChange(tx: Executor, kind: LabelOwner, organizationId: number, id: number): Promise<void> {
  if (kind === 'account') {
    await recordChange(tx, { organizationId, kind: 'ENTITIES_CHANGED', accountId: id });
    return;
  }
  const campaign = await tx.one<{ platformAccountId: number }>(
    'SELECT adplatform_account_id AS "platformAccountId" FROM campaigns WHERE organization_id = $1 AND id = $2',
    [organizationId, id],
  );
  await recordChange(tx, { organizationId, kind: 'ENTITIES_CHANGED', platformAccountId: campaign?.platformAccountId });
}
