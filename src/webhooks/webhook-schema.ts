import { z } from 'zod';
import { EVENT_TYPES } from '../events/event-log.js';
import { ruleIssue, singleLine } from '../shared/zod-rules.js';

export const WEBHOOK_URL_MAX = 2048;
export const WEBHOOK_DESCRIPTION_MAX = 500;
/** Webhooks one organization may have; each event is sent to each of them. */
export const WEBHOOKS_PER_ORGANIZATION = 20;

const PORT = '(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4})';
/** The syntax the document states: https, a host name or [IPv6], a port, a path and query; no user:password@, no #fragment. */
export const WEBHOOK_URL = new RegExp(
  `^https://([A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)*\\.?|\\[[0-9A-Fa-f:.]+\\])(:${PORT})?(/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*)?(\\?[A-Za-z0-9._~!$&'()*+,;=:@%/?-]*)?$`,
);

/** The member object of `POST /provisioning/v0/webhooks`. */
export const webhookCreateSchema = z.strictObject({
  url: z
    .string()
    .max(WEBHOOK_URL_MAX, `must be at most ${WEBHOOK_URL_MAX} characters`)
    .regex(
      WEBHOOK_URL,
      'must be an https:// URL without user:password@ or #fragment (deliveries are never sent in plain text)',
    )
    .meta({
      format: 'uri',
      description:
        'The receiver: https only, no user:password@, no #fragment. Its host must resolve, and only to public addresses (loopback, private and link-local ones are refused unless the service runs with ADREPORT_WEBHOOK_ALLOW_PRIVATE=true).',
      // A name that resolves, to public addresses (IANA's example.com): etl.example.com resolves
      // nowhere, so the example was refused 422 host_not_found (issue 36 item 6).
      example: 'https://example.com/hooks/adreport',
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
