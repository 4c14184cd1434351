import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ChangeCursors } from '../../src/changes/change-cursor.js';
import { PublicEventIds } from '../../src/events/public-event-id.js';

/** Issue 36 item 10: cursors and event ids say nothing of the sequences shared by every organization. */
const key = crypto.randomBytes(32);
const cursors = new ChangeCursors(key);
const cursor = { organizationId: 7, lastId: 123_456, issuedAtMs: 1_764_000_000_000 };

/** The ways a number could be read out of bytes: decimal text, 8-byte and (when it fits) 4-byte big and little endian. */
function spellings(n: number): Buffer[] {
  const b8 = Buffer.alloc(8);
  b8.writeBigUInt64BE(BigInt(n));
  const l8 = Buffer.alloc(8);
  l8.writeBigUInt64LE(BigInt(n));
  if (n >= 2 ** 32) return [Buffer.from(String(n)), b8, l8];
  const b4 = Buffer.alloc(4);
  b4.writeUInt32BE(n);
  const l4 = Buffer.alloc(4);
  l4.writeUInt32LE(n);
  return [Buffer.from(String(n)), b8, l8, b4, l4];
}

describe('change cursors', () => {
  it('open what they seal, for the organization they were sealed for', () => {
    expect(cursors.open(cursors.seal(cursor), 7)).toEqual({ kind: 'cursor', cursor });
  });

  it('do not carry the change id or the issue time in any readable form, and differ each time', () => {
    const a = cursors.seal(cursor);
    const b = cursors.seal(cursor);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^c2_[A-Za-z0-9_-]{59}$/);
    const bytes = Buffer.from(a.slice(3), 'base64url');
    for (const spelling of [...spellings(cursor.lastId), ...spellings(cursor.issuedAtMs)])
      expect(bytes.includes(spelling), spelling.toString('hex')).toBe(false);
    // Cursors of a small and a huge id look alike: same length, same alphabet.
    expect(cursors.seal({ ...cursor, lastId: 1 }).length).toBe(cursors.seal({ ...cursor, lastId: 2 ** 52 }).length);
  });

  it("refuse another organization's cursor, another key's, and every changed character", () => {
    const text = cursors.seal(cursor);
    expect(cursors.open(text, 8)).toEqual({ kind: 'invalid' });
    expect(new ChangeCursors(crypto.randomBytes(32)).open(text, 7)).toEqual({ kind: 'invalid' });
    for (let i = 3; i < text.length; i++) {
      const swapped = text[i] === 'A' ? 'B' : 'A';
      const changed = `${text.slice(0, i)}${swapped}${text.slice(i + 1)}`;
      expect(cursors.open(changed, 7), `character ${i}`).toEqual({ kind: 'invalid' });
    }
    expect(cursors.open(`${text}A`, 7)).toEqual({ kind: 'invalid' });
    expect(cursors.open(text.slice(0, -1), 7)).toEqual({ kind: 'invalid' });
  });

  it('tell a first-format cursor of the organization (no longer accepted) from anything else', () => {
    const unsealed = (text: string) => Buffer.from(text).toString('base64url');
    expect(cursors.open(unsealed('c1.7.5.1764000000000'), 7)).toEqual({ kind: 'unsealed' });
    expect(cursors.open(unsealed('c1.7.999999999.1764000000000'), 7)).toEqual({ kind: 'unsealed' });
    expect(cursors.open(unsealed('c1.8.5.1764000000000'), 7)).toEqual({ kind: 'invalid' });
    expect(cursors.open(unsealed('c1.7.5'), 7)).toEqual({ kind: 'invalid' });
    expect(cursors.open('', 7)).toEqual({ kind: 'invalid' });
  });
});

describe('public event ids', () => {
  const ids = new PublicEventIds(key);

  it('are stable per event, distinct between events, and do not carry the row id', () => {
    expect(ids.of(42)).toBe(ids.of(42));
    const many = new Set(Array.from({ length: 1000 }, (_, i) => ids.of(i + 1)));
    expect(many.size).toBe(1000);
    for (const id of many) expect(id).toMatch(/^evt_[A-Za-z0-9_-]{22}$/);
    expect(ids.of(42)).not.toContain('42');
    expect(new PublicEventIds(crypto.randomBytes(32)).of(42)).not.toBe(ids.of(42));
  });
});
