import type { Executor } from '../../store/database.js';
import type { LazyRows } from '../../store/lazy-rows.js';
import type { SqlValue } from '../../store/sql-values.js';
import { NUMBER_FIELDS, TEXT_FIELDS } from './account-schema.js';
import { linksOf } from '../platform-accounts/platform-account-store.js';
import { accountListWhere, type AccountListFilter } from './account-store.js';

/** A page of the account list: the JSON array of the accounts as spec 2.2 shows them, and the total over all pages. */
export interface AccountListPage {
  readonly total: number;
  readonly json: string;
}

/**
 * One page of accounts as JSON text, each account's scalar members rendered by DuckDB as the
 * report pages are (DESIGN D3). A 100-row page as JS objects took ~3,700 cell conversions (one
 * native call and one UTF-8 decode per string over 12 bytes) and five copies of each row
 * (DuckDB's row object, ours, StoredAccount, the response object, JSON.stringify's): 5.2 ms of
 * main-thread CPU per page, and 16 of them ready at once ran back to back. Now a row is one
 * string and ten doubles: 1.6 ms (README, Design: the account list).
 *
 * The bytes are those JSON.stringify(toAccountResponse(account)) wrote (test/service/accounts-list-bytes.test.ts):
 * DuckDB writes a DOUBLE 100 as `100.0` where JavaScript writes `100`, so field21..field30 come
 * as DOUBLE columns and JavaScript writes them after the rendered part. Four small queries, as
 * before, rather than one with CTEs and joins: that one cost DuckDB 5.8 ms against 2.5 (measured).
 */
export async function accountListPage(
  db: Executor,
  organizationId: number,
  filter: AccountListFilter,
  page: { limit: number; offset: number },
): Promise<AccountListPage> {
  const { where, params } = accountListWhere(organizationId, filter);
  const rows = await db.lazy(
    `SELECT ${HEAD_SQL} AS head, a.id, ${NUMBER_FIELDS.map((f) => `a.${f}`).join(', ')} FROM accounts a
      WHERE ${where} ORDER BY a.id LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...params, page.limit, page.offset],
  );
  try {
    const ids = Array.from({ length: rows.rowCount }, (_, i) => rows.get(i, ID) as number);
    const total = await pageTotal(db, where, params, page, rows.rowCount);
    const labels = await labelsJson(db, ids);
    const links = await linksOf(db, ids);
    const accounts = ids.map((id, i) => {
      const tail = `"labels":${labels.get(id) ?? '{}'},"linkedAdPlatformAccounts":${JSON.stringify(links.get(id) ?? [])}}`;
      return `${scalarsJson(rows, i)},${tail}`;
    });
    return { total, json: `[${accounts.join(',')}]` };
  } finally {
    rows.release();
  }
}

/** The ids of a page and the total, for a store that renders the page's JSON in JavaScript. */
export async function accountListIds(
  db: Executor,
  organizationId: number,
  filter: AccountListFilter,
  page: { limit: number; offset: number },
): Promise<{ ids: number[]; total: number }> {
  const { where, params } = accountListWhere(organizationId, filter);
  const rows = await db.all<{ id: number }>(
    `SELECT a.id FROM accounts a WHERE ${where} ORDER BY a.id LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...params, page.limit, page.offset],
  );
  return { ids: rows.map((row) => row.id), total: await pageTotal(db, where, params, page, rows.length) };
}

/** How many accounts match: a first page shorter than the limit holds every match, so no count is needed. */
async function pageTotal(
  db: Executor,
  where: string,
  params: readonly SqlValue[],
  page: { limit: number; offset: number },
  rowsOnPage: number,
): Promise<number> {
  if (page.offset === 0 && rowsOnPage < page.limit) return rowsOnPage;
  return (await db.one<{ n: number }>(`SELECT count(*) AS n FROM accounts a WHERE ${where}`, params))?.n ?? 0;
}

/** Columns of the page query. */
const HEAD = 0;
const ID = 1;
const FIRST_NUMBER = 2;

/** The account's members up to field20, in the order toAccountResponse gives them. */
const HEAD_MEMBERS = [
  ['id', 'a.id'],
  ['name', 'a.name'],
  ['language', 'a.language_code'],
  ['country', 'a.country_code'],
  ['currency', 'a.currency'],
  ['notes', 'a.notes'],
  ['autoImport', 'a.auto_import'],
  ...TEXT_FIELDS.map((f) => [f, `a.${f}`]),
] as const;
const HEAD_SQL = `to_json(struct_pack(${HEAD_MEMBERS.map(([key, sql]) => `"${key}" := ${sql}`).join(', ')}))::VARCHAR`;
const NUMBER_KEYS = NUMBER_FIELDS.map((f) => `,${JSON.stringify(f)}:`);

/** Each account's labels as a JSON object, sorted by name as getAccount sorts them. */
async function labelsJson(db: Executor, accountIds: readonly number[]): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  if (accountIds.length === 0) return out;
  const rows = await db.lazy(
    'SELECT account_id, name, value FROM account_labels WHERE account_id IN (SELECT unnest($1::VARCHAR[])::BIGINT) ORDER BY account_id, name',
    [accountIds.map(String)],
  );
  try {
    let members: string[] = [];
    for (let i = 0; i < rows.rowCount; i++) {
      const id = rows.get(i, 0) as number;
      members.push(`${JSON.stringify(rows.get(i, 1))}:${JSON.stringify(rows.get(i, 2))}`);
      if (i + 1 === rows.rowCount || rows.get(i + 1, 0) !== id) {
        out.set(id, `{${members.join(',')}}`);
        members = [];
      }
    }
    return out;
  } finally {
    rows.release();
  }
}

/** Row i's members up to field30, as JSON.stringify writes them, without the closing brace. */
function scalarsJson(rows: LazyRows, i: number): string {
  let text = asJavaScriptWrites(rows.get(i, HEAD) as string).slice(0, -1);
  for (let f = 0; f < NUMBER_KEYS.length; f++) {
    text += NUMBER_KEYS[f]! + JSON.stringify(rows.get(i, FIRST_NUMBER + f) as number | null);
  }
  return text;
}

/**
 * DuckDB's JSON writer escapes control characters in upper-case hex (`\u001F`) where
 * JSON.stringify writes lower case (`\u001f`); everything else is written alike (checked for
 * every ASCII character, U+2028/2029 and astral characters). The rare text that may hold such an
 * escape is written again by JSON.stringify; a false match (an escaped backslash before
 * "u001F") costs only that.
 */
function asJavaScriptWrites(json: string): string {
  return UPPER_CASE_ESCAPE.test(json) ? JSON.stringify(JSON.parse(json)) : json;
}
const UPPER_CASE_ESCAPE = /\\u00[01][A-F]/;
