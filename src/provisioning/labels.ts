import { z } from 'zod';
import { ruleIssue, singleLine } from '../shared/zod-rules.js';

/** Label rules of supplement 3, shared by accounts and campaigns. */
export const LABEL_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
export const LABEL_VALUE_MAX = 255;
export const LABELS_MAX = 50;

export type Labels = Readonly<Record<string, string>>;

export const labelsSchema = z
  .record(z.string(), singleLine(z.string().max(LABEL_VALUE_MAX, `must be at most ${LABEL_VALUE_MAX} characters`)))
  .superRefine((labels, ctx) => {
    const names = Object.keys(labels);
    if (names.length > LABELS_MAX)
      ctx.addIssue(ruleIssue('too_many', `at most ${LABELS_MAX} labels, not ${names.length}`));
    for (const name of names) {
      if (!LABEL_NAME.test(name)) {
        ctx.addIssue(
          ruleIssue(
            'invalid_name',
            'a label name starts with a letter and has at most 64 letters, digits and underscores',
            [name],
          ),
        );
      }
    }
  })
  .meta({
    propertyNames: { pattern: LABEL_NAME.source },
    maxProperties: LABELS_MAX,
    description: `Label name -> value; names match ${LABEL_NAME.source}, values at most ${LABEL_VALUE_MAX} characters, at most ${LABELS_MAX} labels.`,
  });

/** Built with defineProperty semantics, so a name like "constructor" is just a label. */
export function labelsFromRows(rows: ReadonlyArray<{ name: string; value: string }>): Labels {
  return Object.fromEntries(rows.map((row) => [row.name, row.value]));
}
