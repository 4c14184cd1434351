import type pg from 'pg';
import { MODEL_RELATIONS } from '../../../src/sql-endpoint/model/relations.js';
import { CORPUS } from '../injection-corpus.js';
import type { ReportingFixture } from '../reporting-fixture.js';
import { textQuery } from './text-results.js';

/**
 * What only the other organization has, for the tenant-isolation fuzz: its entities' names,
 * texts, label values, platform ids and segment values (read with oracle SQL straight from the
 * internal tables), less every value the caller's organization can see through the endpoint
 * (`SELECT *` of each relation) and every text of the injection corpus, and its ids that are no
 * id of the caller's. A row holding one of these came from the other organization.
 */
export interface OtherOrganization {
  /** Values to filter with (the fuzz's probes). */
  readonly probeIds: readonly number[];
  readonly probeTexts: readonly string[];
  /** Texts only the other organization has. */
  readonly onlyTexts: ReadonlySet<string>;
  /** Ids (as text) only the other organization's entities have. */
  readonly onlyIds: ReadonlySet<string>;
  /** The other organization's values found in one value, exactly or (long ones) inside it. */
  valuesIn(value: string): string[];
}

const TEXT_SOURCES = (org: number): string[] => [
  `SELECT name AS v FROM accounts WHERE organization_id = ${org}`,
  ...Array.from({ length: 20 }, (_, i) => `SELECT field${i + 1} AS v FROM accounts WHERE organization_id = ${org}`),
  `SELECT l.name AS v FROM account_labels l JOIN accounts a ON a.id = l.account_id WHERE a.organization_id = ${org}`,
  `SELECT l.value AS v FROM account_labels l JOIN accounts a ON a.id = l.account_id WHERE a.organization_id = ${org}`,
  `SELECT name AS v FROM adplatform_accounts WHERE organization_id = ${org}`,
  `SELECT ad_platform_id AS v FROM adplatform_accounts WHERE organization_id = ${org}`,
  `SELECT name AS v FROM campaigns WHERE organization_id = ${org}`,
  `SELECT ad_platform_id AS v FROM campaigns WHERE organization_id = ${org}`,
  `SELECT l.name AS v FROM campaign_labels l JOIN campaigns c ON c.id = l.campaign_id WHERE c.organization_id = ${org}`,
  `SELECT l.value AS v FROM campaign_labels l JOIN campaigns c ON c.id = l.campaign_id WHERE c.organization_id = ${org}`,
  `SELECT name AS v FROM ad_groups WHERE organization_id = ${org}`,
  `SELECT ad_platform_id AS v FROM ad_groups WHERE organization_id = ${org}`,
  ...['name', 'ad_platform_id', 'headline', 'description', 'final_url'].map(
    (c) => `SELECT ${c} AS v FROM ads WHERE organization_id = ${org}`,
  ),
  `SELECT text AS v FROM keywords WHERE organization_id = ${org}`,
  `SELECT ad_platform_id AS v FROM keywords WHERE organization_id = ${org}`,
  `SELECT DISTINCT age AS v FROM fact_campaign_audience_daily WHERE organization_id = ${org}`,
  `SELECT DISTINCT gender AS v FROM fact_campaign_audience_daily WHERE organization_id = ${org}`,
  `SELECT DISTINCT publisher_platform AS v FROM fact_campaign_placement_daily WHERE organization_id = ${org}`,
  `SELECT DISTINCT platform_position AS v FROM fact_campaign_placement_daily WHERE organization_id = ${org}`,
  `SELECT DISTINCT region AS v FROM fact_campaign_geo_daily WHERE organization_id = ${org}`,
  `SELECT DISTINCT conversion_action AS v FROM fact_campaign_conversion_action_daily WHERE organization_id = ${org}`,
];

const CATALOG_DUMPS = [
  'SELECT * FROM pg_catalog.pg_settings',
  'SELECT * FROM pg_catalog.pg_class',
  'SELECT * FROM pg_catalog.pg_type',
  'SELECT proname, prosrc FROM pg_catalog.pg_proc',
  'SELECT * FROM pg_catalog.pg_namespace',
  'SELECT * FROM pg_catalog.pg_roles',
  'SELECT * FROM pg_catalog.pg_database',
  'SELECT * FROM information_schema.columns',
  'SELECT * FROM information_schema.tables',
];

const ID_TABLES = ['accounts', 'adplatform_accounts', 'campaigns', 'ad_groups', 'ads', 'keywords'];

/** Values shorter than this are too common to be anyone's (a two-letter country, "x"). */
const MIN_LENGTH = 4;
/** Values at least this long are looked for inside a value too (a concatenation, a substring()). */
const SUBSTRING_LENGTH = 10;

export async function otherOrganization(
  fx: ReportingFixture,
  caller: pg.Client,
  otherId: number,
): Promise<OtherOrganization> {
  const texts = async (org: number) => {
    const found = new Set<string>();
    for (const sql of TEXT_SOURCES(org))
      for (const row of await fx.sql<{ v: unknown }>(sql)) if (typeof row.v === 'string') found.add(row.v);
    return found;
  };
  // Everything the caller sees through the endpoint, every column as text: its rows, and the
  // catalog's (a setting's value "unknown" is nobody's data).
  const visible = new Set<string>();
  for (const sql of [...MODEL_RELATIONS.map((r) => `SELECT * FROM ${r.name}`), ...CATALOG_DUMPS]) {
    const result = await textQuery(caller, sql);
    for (const row of result.rows) for (const v of row) if (v !== null) visible.add(v);
  }
  const corpus = new Set(CORPUS);
  const other = await texts(otherId);
  const onlyTexts = new Set([...other].filter((v) => v.length >= MIN_LENGTH && !visible.has(v) && !corpus.has(v)));
  const visibleText = [...visible].join('\n');
  const long = [...onlyTexts].filter((v) => v.length >= SUBSTRING_LENGTH && !visibleText.includes(v));
  const pattern = long.length
    ? new RegExp(long.map((v) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g')
    : undefined;

  const ids = async (org: number, clause: string) => {
    const all: number[] = [];
    for (const table of ID_TABLES)
      for (const row of await fx.sql<{ id: number | bigint }>(
        `SELECT id FROM ${table} WHERE organization_id ${clause} ${org}`,
      ))
        all.push(Number(row.id));
    return all;
  };
  const otherIds = await ids(otherId, '=');
  const everyoneElse = new Set((await ids(otherId, '<>')).map(String));
  const onlyIds = new Set(otherIds.map(String).filter((id) => !everyoneElse.has(id)));

  return {
    probeIds: otherIds,
    probeTexts: [...onlyTexts],
    onlyTexts,
    onlyIds,
    valuesIn(value) {
      if (onlyTexts.has(value)) return [value];
      if (!pattern || value.length < SUBSTRING_LENGTH) return [];
      return [...new Set(value.match(pattern) ?? [])];
    },
  };
}
