import { SCOPES, type Scope } from '../config/config.js';

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** Parses a comma list (CLI) into known scopes, or names the first unknown one. */
export function parseScopeList(text: string): { ok: true; scopes: Scope[] } | { ok: false; unknown: string } {
  const scopes: Scope[] = [];
  for (const part of text.split(',').map((s) => s.trim())) {
    if (!isScope(part)) return { ok: false, unknown: part };
    if (!scopes.includes(part)) scopes.push(part);
  }
  return { ok: true, scopes };
}

/** The scope each API prefix requires. */
export const SCOPE_OF_PREFIX: Readonly<Record<string, Scope>> = {
  '/provisioning/v0': 'provisioning',
  '/reporting/v0': 'reporting',
};
