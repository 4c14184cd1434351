import crypto from 'node:crypto';
import fs from 'node:fs';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { recordChange } from '../changes/change-log.js';
import type { Executor } from '../store/database.js';
import type { Store } from '../store/store.js';
import { applyImportedRates } from './fx-imported-rates.js';

/**
 * Daily FX reference rates (units of a currency per 1 EUR, ECB convention) from
 * data/fx/eur-reference-rates.csv.gz: one row per calendar day, a column per currency. Where the
 * rates come from, which are published and which continued: data/fx/SOURCE.md and series.csv.
 * The same path from src/reference and from dist/reference.
 */
export const FX_REFERENCE_FILE = fileURLToPath(new URL('../../data/fx/eur-reference-rates.csv.gz', import.meta.url));
/** Per currency the last day whose rate is published (or carried from a published one); later days are estimated. */
export const FX_SERIES_FILE = fileURLToPath(new URL('../../data/fx/series.csv', import.meta.url));

/** The reference text; gzip (the committed file: 1 MB instead of 3.4 MB) or plain CSV. */
export function fxReferenceText(bytes: Buffer): string {
  const isGzip = bytes[0] === 0x1f && bytes[1] === 0x8b;
  return (isGzip ? zlib.gunzipSync(bytes) : bytes).toString('utf8').replaceAll('\r\n', '\n');
}

const REFERENCE_NAME = 'fx-rates';
/** Part of the checksum: a load of this shape (with published flags) differs from an older one of the same files. */
const LOAD_VERSION = 'fx-load-v2';
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const CODE = /^[A-Z]{3}$/;

export interface FxLoadResult {
  /** True when this call replaced fx_rates; false when the stored checksum matched the file. */
  readonly loaded: boolean;
  readonly currencies: number;
  readonly from: string;
  readonly to: string;
}

/**
 * Makes fx_rates the content of the reference file, with each rate marked published up to its
 * currency's `published_through` in the series file, then lays the imported rates over it again
 * (fx_imported_rates: imports survive a reload), all in one write transaction; unless the checksum
 * stored in reference_data says it already is (a start then costs one file hash, ~10 ms). The
 * text is checked (consecutive days, one positive rate per currency and day) and parsed by DuckDB
 * from one bound parameter: the store's hardening only lets DuckDB read files under the database's
 * own directory and the temp dir, and a repository file is in neither.
 */
export async function loadFxReference(
  db: Store,
  file: string = FX_REFERENCE_FILE,
  seriesFile: string = FX_SERIES_FILE,
): Promise<FxLoadResult> {
  const bytes = await fs.promises.readFile(file);
  const seriesText = await fs.promises.readFile(seriesFile, 'utf8');
  const checksum = `sha256:${crypto.createHash('sha256').update(LOAD_VERSION).update(bytes).update(seriesText).digest('hex')}`;
  const stored = await db.read((r) =>
    r.one<{ checksum: string }>('SELECT checksum FROM reference_data WHERE name = $1', [REFERENCE_NAME]),
  );
  // Unchanged: what is loaded says the coverage, without unpacking 3.4 MB on every start.
  if (stored?.checksum === checksum) {
    const loaded = await db.read(fxCoverage);
    if (loaded.from !== null && loaded.to !== null)
      return { loaded: false, currencies: loaded.currencies, from: loaded.from, to: loaded.to };
  }
  const text = fxReferenceText(bytes);
  const coverage = coverageOfText(text, file);

  const codes = headerCodes(text, file);
  checkRows(text, file, codes);
  const publishedThrough = publishedThroughOf(seriesText, seriesFile, codes);
  await db.write('all-organizations', async (tx) => {
    await tx.run('DELETE FROM fx_rates');
    // Lines are day,rate,rate,...; unnest pairs each rate with its column's code and published-through
    // day, in file order, which is (day, currency) order, so zone maps skip the days a report does not ask for.
    await tx.run(
      `INSERT INTO fx_rates (day, currency, units_per_eur, published)
       SELECT cells[1]::DATE, unnest($2::VARCHAR[]), unnest(cells[2:])::DECIMAL(18,8), cells[1]::DATE <= unnest($3::DATE[])
       FROM (SELECT string_split(line, ',') AS cells FROM (SELECT unnest(string_split(rtrim($1, chr(10)), chr(10))) AS line) WHERE line NOT LIKE 'day,%')`,
      [text, codes, publishedThrough],
    );
    const bad = await tx.one<{ day: string; currency: string; rate: string }>(
      "SELECT strftime(day, '%Y-%m-%d') AS day, currency, units_per_eur::VARCHAR AS rate FROM fx_rates WHERE units_per_eur <= 0 LIMIT 1",
    );
    if (bad) throw new Error(`${file}: the ${bad.currency} rate of ${bad.day} is ${bad.rate}, not a positive decimal`);
    await tx.run(
      `INSERT INTO reference_data (name, checksum, loaded_at) VALUES ($1, $2, now())
       ON CONFLICT (name) DO UPDATE SET checksum = excluded.checksum, loaded_at = excluded.loaded_at`,
      [REFERENCE_NAME, checksum],
    );
    // Only when there are imports: the overlay's SQL is DuckDB's (a PostgreSQL store imports none, `fx import` refuses there).
    if (await tx.one('SELECT 1 AS one FROM fx_imported_rates LIMIT 1')) await applyImportedRates(tx);
    // A new reference file may restate any day for every organization; the first load changes no data anyone pulled.
    if (stored) await recordChange(tx, { organizationId: null, kind: 'FX_OR_MARKUP_CHANGED' });
  });
  return { loaded: true, ...coverage };
}

export interface FxCoverage {
  readonly currencies: number;
  readonly rows: number;
  readonly from: string | null;
  readonly to: string | null;
}

/** What fx_rates holds now. */
export async function fxCoverage(db: Executor): Promise<FxCoverage> {
  const row = await db.one<{ currencies: number; rows: number; from: string | null; to: string | null }>(
    `SELECT count(DISTINCT currency)::INTEGER AS currencies, count(*)::INTEGER AS rows,
            strftime(min(day), '%Y-%m-%d') AS "from", strftime(max(day), '%Y-%m-%d') AS "to" FROM fx_rates`,
  );
  return row ?? { currencies: 0, rows: 0, from: null, to: null };
}

let supported: ReadonlySet<string> | undefined;

/**
 * The currencies the reference file has rates for, read once from its header line, so the rule
 * "an account's currency must be convertible" cannot drift from what fx_rates is loaded with.
 */
export function supportedCurrencies(): ReadonlySet<string> {
  supported ??= new Set(headerCodes(readHeaderLine(FX_REFERENCE_FILE), FX_REFERENCE_FILE));
  return supported;
}

function readHeaderLine(file: string): string {
  const text = fxReferenceText(fs.readFileSync(file));
  const end = text.indexOf('\n');
  return end < 0 ? text : text.slice(0, end);
}

/** series.csv: `currency,resolution,published_through,...`; the published-through day of each code, in the codes' order. */
function publishedThroughOf(text: string, file: string, codes: readonly string[]): string[] {
  const lines = text.replaceAll('\r\n', '\n').trimEnd().split('\n');
  const header = lines[0]?.split(',') ?? [];
  const codeAt = header.indexOf('currency');
  const throughAt = header.indexOf('published_through');
  if (codeAt < 0 || throughAt < 0) throw new Error(`${file}: the header must name currency and published_through`);
  const through = new Map<string, string>();
  for (let i = 1; i < lines.length; i++) {
    const cells = lines[i]!.split(',');
    const code = cells[codeAt] ?? '';
    const day = cells[throughAt] ?? '';
    if (!CODE.test(code) || !DAY.test(day))
      throw new Error(`${file} line ${i + 1}: expected a currency code and a published_through day`);
    through.set(code, day);
  }
  return codes.map((code) => {
    const day = through.get(code);
    if (day === undefined)
      throw new Error(`${file}: no published_through for ${code}, a currency of the reference file`);
    return day;
  });
}

function headerCodes(text: string, file: string): string[] {
  const end = text.indexOf('\n');
  const header = (end < 0 ? text : text.slice(0, end)).replace(/\r$/, '').split(',');
  const codes = header.slice(1);
  if (
    header[0] !== 'day' ||
    codes.length === 0 ||
    codes.some((c) => !CODE.test(c)) ||
    new Set(codes).size !== codes.length
  ) {
    throw new Error(`${file}: the header must be day followed by distinct three-letter currency codes`);
  }
  return codes;
}

/** Coverage from the header, the first and the last line, without splitting the whole text. */
function coverageOfText(text: string, file: string): { currencies: number; from: string; to: string } {
  const codes = headerCodes(text, file);
  const body = text.trimEnd();
  const from = body.slice(body.indexOf('\n') + 1, body.indexOf('\n') + 11);
  const to = body.slice(body.lastIndexOf('\n') + 1, body.lastIndexOf('\n') + 11);
  if (body.indexOf('\n') < 0 || !DAY.test(from) || !DAY.test(to)) throw new Error(`${file}: no rows of rates`);
  return { currencies: codes.length, from, to };
}

/**
 * Every line: consecutive calendar days, one cell per currency. Cells are checked by DuckDB (a
 * cast that fails, or a rate that is not positive, rolls the load back): a regular expression
 * per cell here cost 120-150 ms of the ~350 ms load.
 */
function checkRows(text: string, file: string, codes: readonly string[]): void {
  const lines = text.trimEnd().split('\n');
  let expected = Date.parse(`${lines[1]!.slice(0, 10)}T00:00:00Z`);
  for (let i = 1; i < lines.length; i++) {
    const cells = lines[i]!.split(',');
    const day = new Date(expected).toISOString().slice(0, 10);
    if (cells[0] !== day) throw new Error(`${file} line ${i + 1}: expected day ${day}, found ${cells[0]}`);
    if (cells.length !== codes.length + 1)
      throw new Error(`${file} line ${i + 1}: ${cells.length - 1} rates for ${codes.length} currencies`);
    expected += 86_400_000;
  }
}
