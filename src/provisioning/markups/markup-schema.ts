import { z } from 'zod';
import { ruleIssue } from '../../shared/zod-rules.js';

/** A markup is a fraction on top of cost (0.15 = 15 %): costWithMarkup = cost x (1 + rate). */
export const MARKUP_RATE_MAX = 10;
export const MARKUP_RATE_DECIMALS = 6;

const DATE_FORMAT = /^\d{4}-\d{2}-\d{2}$/;

/** A calendar day as supplement 1 writes dates; 2026-02-30 is well-formed but no day. */
export function isCalendarDate(text: string): boolean {
  if (!DATE_FORMAT.test(text) || text.startsWith('0000')) return false;
  const parsed = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === text;
}

const date = z
  .string()
  .regex(DATE_FORMAT, 'must be a date YYYY-MM-DD')
  .superRefine((value, ctx) => {
    if (DATE_FORMAT.test(value) && !isCalendarDate(value))
      ctx.addIssue(ruleIssue('invalid_date', `${value} is not a day of the calendar`));
  })
  .meta({ format: 'date' });

/** A JSON number; more decimals than DECIMAL(9,6) keeps would be silently rounded, so they are refused. */
const rate = z
  .number()
  .min(0, 'must be at least 0')
  .max(MARKUP_RATE_MAX, `must be at most ${MARKUP_RATE_MAX} (a fraction: 0.15 is 15 %)`)
  .superRefine((value, ctx) => {
    if (Number(value.toFixed(MARKUP_RATE_DECIMALS)) !== value) {
      ctx.addIssue(ruleIssue('too_precise', `at most ${MARKUP_RATE_DECIMALS} decimals (a fraction: 0.15 is 15 %)`));
    }
  })
  .meta({
    multipleOf: 10 ** -MARKUP_RATE_DECIMALS,
    description: `A fraction on top of cost (0.15 is 15 %), 0-${MARKUP_RATE_MAX}, at most ${MARKUP_RATE_DECIMALS} decimals.`,
  });

// readOnly in the document: generated clients leave these out of requests.
const readOnly = (message: string) =>
  z
    .unknown()
    .optional()
    .superRefine((value, ctx) => {
      if (value !== undefined) ctx.addIssue(ruleIssue('read_only', message));
    })
    .meta({ readOnly: true, description: `Response only; sent, it is a 422 (${message}).` });

/** The body member of POST .../markups; endDate missing or null is an open-ended period. */
export const markupCreateSchema = z
  .strictObject({
    rate,
    startDate: date,
    endDate: date.nullable().optional().meta({
      description: 'Last day (inclusive), not before startDate (422 before_start); null or missing: open-ended.',
    }),
    id: readOnly('id is assigned by the service'),
    accountId: readOnly('accountId is the account of the path'),
  })
  .superRefine(
    (markup, ctx) => {
      if (typeof markup.endDate === 'string' && markup.endDate < markup.startDate) {
        ctx.addIssue(
          ruleIssue('before_start', `${markup.endDate} is before startDate ${markup.startDate}`, ['endDate']),
        );
      }
    },
    // Also when another field failed, so one answer lists every broken rule; dates compare as text.
    { when: (payload) => bothCalendarDates(payload.value) },
  );

function bothCalendarDates(value: unknown): boolean {
  const { startDate, endDate } = (value ?? {}) as { startDate?: unknown; endDate?: unknown };
  return (
    typeof startDate === 'string' && typeof endDate === 'string' && isCalendarDate(startDate) && isCalendarDate(endDate)
  );
}

export type MarkupCreate = z.infer<typeof markupCreateSchema>;
