import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountState } from '../../src/provisioning/accounts/account-schema.js';
import { CUSTOM_FIELDS, NUMBER_FIELDS } from '../../src/provisioning/accounts/account-schema.js';
import { getAccount, insertAccount, updateAccount } from '../../src/provisioning/accounts/account-store.js';
import { Database } from '../../src/store/database.js';
import { migrate } from '../../src/store/migrate.js';
import { tempDir } from '../helpers/server.js';

/*
 * An account update writes the columns and labels that changed, nothing else (issue 34 item 2):
 * DuckDB versions every column an UPDATE names, and the WAL shows what a commit wrote.
 */
const dir = tempDir('adreport-account-store-');
const file = path.join(dir, 'a.duckdb');
let db: Database;
beforeAll(async () => {
  db = await Database.open(file, { readConnections: 1, maxQueued: 8 });
  await migrate(db);
  await db.write('all-organizations', (tx) => tx.run("INSERT INTO organizations (id, name) VALUES (1, 'Org')"));
});
afterAll(async () => {
  await db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const walBytes = () => fs.statSync(`${file}.wal`, { throwIfNoEntry: false })?.size ?? 0;

function state(tag: string): AccountState {
  return {
    name: `Account ${tag}`,
    languageCode: 'de',
    countryCode: 'DE',
    currency: 'EUR',
    notes: `notes ${tag}`,
    autoImport: false,
    custom: Object.fromEntries(
      CUSTOM_FIELDS.map((f, i) => [f, NUMBER_FIELDS.includes(f) ? i + tag.length : `${f} ${tag}`]),
    ),
    labels: { team: tag, region: 'north' },
  };
}

/** Stores `next` over the stored account and answers what the WAL grew by and whether it wrote. */
async function update(id: number, next: AccountState): Promise<{ wrote: boolean; walGrowth: number }> {
  const before = walBytes();
  const wrote = await db.write({ organizationId: 1 }, async (tx) => {
    const current = (await getAccount(tx, 1, id))!;
    return updateAccount(tx, 1, id, current, next);
  });
  return { wrote, walGrowth: walBytes() - before };
}

describe('updateAccount', () => {
  it('writes nothing when nothing changed, and every change when all did', async () => {
    const id = await db.write({ organizationId: 1 }, (tx) => insertAccount(tx, 1, state('a')));
    expect(await update(id, state('a'))).toEqual({ wrote: false, walGrowth: 0 });
    const all = await update(id, state('bb'));
    expect(all.wrote).toBe(true);
    const { links, id: storedId, ...stored } = (await db.read((r) => getAccount(r, 1, id)))!;
    expect({ storedId, links }).toEqual({ storedId: id, links: [] });
    expect(stored).toEqual(state('bb'));
  });

  it('writes one field in a small part of what all fields take', async () => {
    const id = await db.write({ organizationId: 1 }, (tx) => insertAccount(tx, 1, state('c')));
    const all = await update(id, state('dd'));
    const one = await update(id, { ...state('dd'), notes: 'only this' });
    expect(one.wrote).toBe(true);
    expect(one.walGrowth).toBeGreaterThan(0);
    expect(one.walGrowth * 5).toBeLessThan(all.walGrowth);
    const stored = (await db.read((r) => getAccount(r, 1, id)))!;
    expect(stored.notes).toBe('only this');
    expect(stored.custom).toEqual(state('dd').custom);
  });

  it('changes labels one by one: removed, changed and added', async () => {
    const id = await db.write({ organizationId: 1 }, (tx) => insertAccount(tx, 1, state('e')));
    const next = { ...state('e'), labels: { team: 'changed', added: 'new' } };
    expect((await update(id, next)).wrote).toBe(true);
    expect((await db.read((r) => getAccount(r, 1, id)))!.labels).toEqual({ added: 'new', team: 'changed' });
    const updatedAt = () =>
      db.read((r) => r.one<{ t: string }>('SELECT updated_at::VARCHAR AS t FROM accounts WHERE id = $1', [id]));
    const before = await updatedAt();
    expect((await update(id, { ...next, labels: { team: 'again' } })).wrote).toBe(true);
    expect((await updatedAt())!.t).not.toBe(before!.t);
  });
});
