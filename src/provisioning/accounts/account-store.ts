import type { Executor } from '../../store/database.js';
import type { SqlValue } from '../../store/sql-values.js';
import { labelsFromRows, type Labels } from '../labels.js';
import { CUSTOM_FIELDS, type AccountState } from './account-schema.js';

/** Store functions for accounts; every one is scoped by organization. */
export interface StoredAccount extends AccountState {
  readonly id: number;
}

export interface AccountListFilter {
  readonly ids?: readonly number[] | undefined;
  readonly labels?: ReadonlyArray<{ name: string; value: string }> | undefined;
}

const CUSTOM_COLUMNS = CUSTOM_FIELDS.join(', ');
const STATE_COLUMNS = `name, language_code, country_code, currency, notes, auto_import, ${CUSTOM_COLUMNS}`;

const SELECT_ACCOUNT = `
  SELECT a.id, a.name, a.language_code, a.country_code, a.currency, a.notes, a.auto_import, ${CUSTOM_FIELDS.map((f) => `a.${f}`).join(', ')},
         coalesce((SELECT list({'name': l.name, 'value': l.value} ORDER BY l.name) FROM account_labels l WHERE l.account_id = a.id), []) AS labels
    FROM accounts a`;

function stateValues(state: AccountState): SqlValue[] {
  return [state.name, state.languageCode, state.countryCode, state.currency, state.notes, state.autoImport, ...CUSTOM_FIELDS.map((f) => state.custom[f] ?? null)];
}

function fromRow(row: Record<string, unknown>): StoredAccount {
  return {
    id: row.id as number,
    name: row.name as string,
    languageCode: row.language_code as string,
    countryCode: row.country_code as string,
    currency: row.currency as string,
    notes: row.notes as string | null,
    autoImport: row.auto_import as boolean,
    custom: Object.fromEntries(CUSTOM_FIELDS.map((f) => [f, row[f] as string | number | null])),
    labels: labelsFromRows(row.labels as Array<{ name: string; value: string }>),
  };
}

export async function insertAccount(tx: Executor, organizationId: number, state: AccountState): Promise<number> {
  const placeholders = stateValues(state).map((_, i) => `$${i + 2}`).join(', ');
  const row = await tx.one<{ id: number }>(
    `INSERT INTO accounts (organization_id, ${STATE_COLUMNS}) VALUES ($1, ${placeholders}) RETURNING id`,
    [organizationId, ...stateValues(state)],
  );
  await replaceAccountLabels(tx, row!.id, state.labels);
  return row!.id;
}

export async function updateAccount(tx: Executor, organizationId: number, id: number, state: AccountState): Promise<void> {
  const assignments = STATE_COLUMNS.split(', ').map((column, i) => `${column} = $${i + 3}`).join(', ');
  await tx.run(`UPDATE accounts SET ${assignments}, updated_at = now() WHERE organization_id = $1 AND id = $2`, [organizationId, id, ...stateValues(state)]);
  await replaceAccountLabels(tx, id, state.labels);
}

async function replaceAccountLabels(tx: Executor, accountId: number, labels: Labels): Promise<void> {
  await tx.run('DELETE FROM account_labels WHERE account_id = $1', [accountId]);
  const entries = Object.entries(labels);
  if (entries.length === 0) return;
  await tx.run(
    'INSERT INTO account_labels (account_id, name, value) SELECT $1, unnest($2::VARCHAR[]), unnest($3::VARCHAR[])',
    [accountId, entries.map(([name]) => name), entries.map(([, value]) => value)],
  );
}

export async function getAccount(db: Executor, organizationId: number, id: number): Promise<StoredAccount | undefined> {
  const row = await db.one(`${SELECT_ACCOUNT} WHERE a.organization_id = $1 AND a.id = $2`, [organizationId, id]);
  return row ? fromRow(row) : undefined;
}

/** One page in id order plus the total over all pages. */
export async function listAccounts(
  db: Executor,
  organizationId: number,
  filter: AccountListFilter,
  page: { limit: number; offset: number },
): Promise<{ total: number; accounts: StoredAccount[] }> {
  const params: SqlValue[] = [organizationId];
  const conditions = ['a.organization_id = $1'];
  if (filter.ids) {
    params.push(filter.ids.map(String));
    conditions.push(`a.id IN (SELECT unnest($${params.length}::VARCHAR[])::BIGINT)`);
  }
  for (const label of filter.labels ?? []) {
    params.push(label.name, label.value);
    conditions.push(`EXISTS (SELECT 1 FROM account_labels l WHERE l.account_id = a.id AND l.name = $${params.length - 1} AND l.value = $${params.length})`);
  }
  const where = conditions.join(' AND ');
  const total = await db.one<{ n: number }>(`SELECT count(*) AS n FROM accounts a WHERE ${where}`, params);
  const rows = await db.all(`${SELECT_ACCOUNT} WHERE ${where} ORDER BY a.id LIMIT $${params.length + 1} OFFSET $${params.length + 2}`, [
    ...params,
    page.limit,
    page.offset,
  ]);
  return { total: total?.n ?? 0, accounts: rows.map(fromRow) };
}
