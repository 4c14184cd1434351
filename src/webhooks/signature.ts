import crypto from 'node:crypto';

/**
 * Stripe's scheme: `Adreport-Signature: t=<unix seconds>, v1=<hex HMAC-SHA256>` over
 * `<t>.<body>`, keyed with the secret exactly as shown at creation (its UTF-8 bytes). The
 * timestamp inside the signed text lets a receiver refuse replays of an old delivery.
 */
export const SIGNATURE_HEADER = 'Adreport-Signature';

export function signatureHeader(secret: string, body: string, unixSeconds: number): string {
  const mac = crypto.createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds}, v1=${mac}`;
}
