import { z } from 'zod';
import { EVENT_TYPES } from '../events/event-log.js';
import { ruleIssue, singleLine } from '../shared/zod-rules.js';

export const WEBHOOK_URL_MAX = 2048;
export const WEBHOOK_DESCRIPTION_MAX = 500;
/** Webhooks one organization may have; each event is sent to each of them. */
export const WEBHOOKS_PER_ORGANIZATION = 20;

/** The member object of `POST /provisioning/v0/webhooks`. */
export const webhookCreateSchema = z.strictObject({
  url: z
    .string()
    .max(WEBHOOK_URL_MAX, `must be at most ${WEBHOOK_URL_MAX} characters`)
    .regex(/^https:\/\//, 'must be an https:// URL (deliveries are never sent in plain text)')
    .superRefine((value, ctx) => {
      if (!value.startsWith('https://')) return;
      let url: URL;
      try {
        url = new URL(value);
      } catch {
        ctx.addIssue(ruleIssue('invalid_url', 'is not a URL'));
        return;
      }
      if (url.username !== '' || url.password !== '')
        ctx.addIssue(
          ruleIssue(
            'credentials_in_url',
            'must not carry a user name or password; verify deliveries by their signature',
          ),
        );
      if (url.hash !== '') ctx.addIssue(ruleIssue('fragment_in_url', 'must not have a #fragment'));
    })
    .meta({
      format: 'uri',
      description:
        'The receiver: https only, no user:password@, no #fragment. Its host must resolve, and only to public addresses (loopback, private and link-local ones are refused unless the service runs with ADREPORT_WEBHOOK_ALLOW_PRIVATE=true).',
      example: 'https://etl.example.com/hooks/adreport',
    }),
  events: z
    .array(z.enum(EVENT_TYPES))
    .min(1, 'must name at least one event type')
    .max(EVENT_TYPES.length)
    .superRefine((value, ctx) => {
      if (new Set(value).size !== value.length)
        ctx.addIssue(ruleIssue('duplicate', 'must not name an event type twice'));
    })
    .meta({ uniqueItems: true, description: `Event types to receive: ${EVENT_TYPES.join(', ')}.` }),
  description: singleLine(
    z.string().max(WEBHOOK_DESCRIPTION_MAX, `must be at most ${WEBHOOK_DESCRIPTION_MAX} characters`),
  )
    .nullable()
    .optional()
    .meta({ description: 'Free text for people (which connector this is); one line.' }),
});
export type WebhookCreate = z.infer<typeof webhookCreateSchema>;
