/**
 * The six reporting levels (spec 4.3, supplement 5): which entities a level lists, which fact
 * table and column carry its figures, and which of its fields rows show and filters, sorts and
 * embeds may name. Entity SQL selects columns named by the row keys, scoped by `$1` = the
 * organization; nothing here is user text.
 */
export type LevelPath = 'accounts' | 'adplatform-accounts' | 'campaigns' | 'adgroups' | 'keywords' | 'ads';

export interface DimensionField {
  /** As filters and sorts name it (`name`, `campaignId`, ...). */
  readonly name: string;
  readonly type: 'string' | 'number';
  /** The entity column (a quoted row key). */
  readonly column: string;
  /** Values that mean another (ADWORDS means GOOGLE_ADS). */
  readonly aliases?: Readonly<Record<string, string>>;
}

export interface LevelDefinition {
  readonly path: LevelPath;
  /** Key of the response's row list. */
  readonly plural: string;
  readonly factTable: 'fact_ad_daily' | 'fact_keyword_daily';
  /** The fact column holding the entity id; null for accounts, reached through their links. */
  readonly factKey: string | null;
  /** One row per entity of the organization; columns named as the row keys. */
  readonly entities: string;
  /** Row keys in output order, besides statistics, segments, formulas and embeds. */
  readonly rowKeys: readonly string[];
  readonly fields: readonly DimensionField[];
  /** `name` or `text`: the exact-match parameter of this level (`*` wildcard). */
  readonly nameParameter: 'name' | 'text';
  readonly labels?: { readonly table: string; readonly key: string } | undefined;
  readonly customFields: boolean;
  /**
   * The entity column holding its ad platform account's id, for the `accountId` filter (true when
   * that platform account is linked to the account); undefined on accounts, which have `id`.
   */
  readonly platformAccountColumn: string | undefined;
  readonly embeds: readonly string[];
}

const PLATFORM_ALIASES = { ADWORDS: 'GOOGLE_ADS', BING_ADS: 'MICROSOFT_ADVERTISING' } as const;
const field = (name: string, type: 'string' | 'number', aliases?: Readonly<Record<string, string>>): DimensionField => ({
  name,
  type,
  column: `"${name}"`,
  ...(aliases ? { aliases } : {}),
});

const CUSTOM_COLUMNS = Array.from({ length: 30 }, (_, i) => `a.field${i + 1}`).join(', ');

export const LEVELS: readonly LevelDefinition[] = [
  {
    path: 'accounts',
    plural: 'accounts',
    factTable: 'fact_ad_daily',
    factKey: null,
    entities: `SELECT a.id, a.name, a.currency, ${CUSTOM_COLUMNS} FROM accounts a WHERE a.organization_id = $1::BIGINT`,
    rowKeys: ['id', 'name', 'currency'],
    fields: [field('id', 'number'), field('name', 'string'), field('currency', 'string')],
    nameParameter: 'name',
    labels: { table: 'account_labels', key: 'account_id' },
    customFields: true,
    platformAccountColumn: undefined,
    embeds: ['labels', 'customFields'],
  },
  {
    path: 'adplatform-accounts',
    plural: 'adPlatformAccounts',
    factTable: 'fact_ad_daily',
    factKey: 'adplatform_account_id',
    // Every platform account the organization knows, as GET /provisioning/v0/adplatform-accounts lists them.
    entities: `SELECT p.id, p.name, p.ad_platform_type AS "adPlatformType", p.ad_platform_id AS "adPlatformId", p.currency
                 FROM adplatform_accounts p
                WHERE p.organization_id = $1::BIGINT`,
    rowKeys: ['id', 'name', 'adPlatformType', 'adPlatformId', 'currency'],
    fields: [field('id', 'number'), field('name', 'string'), field('adPlatformType', 'string', PLATFORM_ALIASES), field('adPlatformId', 'string'), field('currency', 'string')],
    nameParameter: 'name',
    customFields: false,
    platformAccountColumn: 'id',
    embeds: [],
  },
  {
    path: 'campaigns',
    plural: 'campaigns',
    factTable: 'fact_ad_daily',
    factKey: 'campaign_id',
    entities: `SELECT c.id, c.name, c.adplatform_account_id AS "adPlatformAccountId", c.ad_platform_type AS "adPlatformAccountType", c.status, p.currency
                 FROM campaigns c JOIN adplatform_accounts p ON p.id = c.adplatform_account_id
                WHERE c.organization_id = $1::BIGINT`,
    rowKeys: ['id', 'name', 'adPlatformAccountId', 'adPlatformAccountType', 'status', 'currency'],
    fields: [
      field('id', 'number'),
      field('name', 'string'),
      field('adPlatformAccountId', 'number'),
      field('adPlatformAccountType', 'string', PLATFORM_ALIASES),
      { ...field('adPlatformType', 'string', PLATFORM_ALIASES), column: '"adPlatformAccountType"' },
      field('status', 'string'),
      field('currency', 'string'),
    ],
    nameParameter: 'name',
    labels: { table: 'campaign_labels', key: 'campaign_id' },
    customFields: false,
    platformAccountColumn: '"adPlatformAccountId"',
    embeds: ['labels'],
  },
  {
    path: 'adgroups',
    plural: 'adGroups',
    factTable: 'fact_ad_daily',
    factKey: 'ad_group_id',
    entities: `SELECT g.id, g.name, c.adplatform_account_id AS "adPlatformAccountId", g.campaign_id AS "campaignId",
                      c.ad_platform_type AS "adPlatformAccountType", g.ad_platform_id AS "adPlatformId", g.status, p.currency
                 FROM ad_groups g JOIN campaigns c ON c.id = g.campaign_id JOIN adplatform_accounts p ON p.id = c.adplatform_account_id
                WHERE g.organization_id = $1::BIGINT`,
    rowKeys: ['id', 'name', 'adPlatformAccountId', 'campaignId', 'adPlatformAccountType', 'adPlatformId', 'status', 'currency'],
    fields: [
      field('id', 'number'),
      field('name', 'string'),
      field('adPlatformAccountId', 'number'),
      field('campaignId', 'number'),
      field('adPlatformAccountType', 'string', PLATFORM_ALIASES),
      { ...field('adPlatformType', 'string', PLATFORM_ALIASES), column: '"adPlatformAccountType"' },
      field('adPlatformId', 'string'),
      field('status', 'string'),
      field('currency', 'string'),
    ],
    nameParameter: 'name',
    customFields: false,
    platformAccountColumn: '"adPlatformAccountId"',
    embeds: [],
  },
  {
    path: 'keywords',
    plural: 'keywords',
    factTable: 'fact_keyword_daily',
    factKey: 'keyword_id',
    entities: `SELECT k.id, k.text, c.adplatform_account_id AS "adPlatformAccountId", g.campaign_id AS "campaignId", k.ad_group_id AS "adGroupId",
                      c.ad_platform_type AS "adPlatformAccountType", k.ad_platform_id AS "adPlatformId", k.match_type AS "matchType", k.status, p.currency
                 FROM keywords k JOIN ad_groups g ON g.id = k.ad_group_id JOIN campaigns c ON c.id = g.campaign_id
                 JOIN adplatform_accounts p ON p.id = c.adplatform_account_id
                WHERE k.organization_id = $1::BIGINT`,
    rowKeys: ['id', 'text', 'adPlatformAccountId', 'campaignId', 'adGroupId', 'adPlatformAccountType', 'adPlatformId', 'matchType', 'status', 'currency'],
    fields: [
      field('id', 'number'),
      field('text', 'string'),
      field('adPlatformAccountId', 'number'),
      field('campaignId', 'number'),
      field('adGroupId', 'number'),
      field('adPlatformAccountType', 'string', PLATFORM_ALIASES),
      { ...field('adPlatformType', 'string', PLATFORM_ALIASES), column: '"adPlatformAccountType"' },
      field('adPlatformId', 'string'),
      field('matchType', 'string'),
      field('status', 'string'),
      field('currency', 'string'),
    ],
    nameParameter: 'text',
    customFields: false,
    platformAccountColumn: '"adPlatformAccountId"',
    embeds: [],
  },
  {
    path: 'ads',
    plural: 'ads',
    factTable: 'fact_ad_daily',
    factKey: 'ad_id',
    entities: `SELECT a.id, a.name, c.adplatform_account_id AS "adPlatformAccountId", g.campaign_id AS "campaignId", a.ad_group_id AS "adGroupId",
                      c.ad_platform_type AS "adPlatformAccountType", a.ad_type AS "adType", a.status, p.currency,
                      a.image_urls AS "__images", a.specific_fields AS "__specificFields"
                 FROM ads a JOIN ad_groups g ON g.id = a.ad_group_id JOIN campaigns c ON c.id = g.campaign_id
                 JOIN adplatform_accounts p ON p.id = c.adplatform_account_id
                WHERE a.organization_id = $1::BIGINT`,
    rowKeys: ['id', 'name', 'adPlatformAccountId', 'campaignId', 'adGroupId', 'adPlatformAccountType', 'adType', 'status', 'currency'],
    fields: [
      field('id', 'number'),
      field('name', 'string'),
      field('adPlatformAccountId', 'number'),
      field('campaignId', 'number'),
      field('adGroupId', 'number'),
      field('adPlatformAccountType', 'string', PLATFORM_ALIASES),
      { ...field('adPlatformType', 'string', PLATFORM_ALIASES), column: '"adPlatformAccountType"' },
      field('adType', 'string'),
      field('status', 'string'),
      field('currency', 'string'),
    ],
    nameParameter: 'name',
    customFields: false,
    platformAccountColumn: '"adPlatformAccountId"',
    embeds: ['images', 'specificFields'],
  },
];

export const LEVEL_BY_PATH: ReadonlyMap<LevelPath, LevelDefinition> = new Map(LEVELS.map((l) => [l.path, l]));

/** Account custom fields as filters name them: customFields.field1 .. field30 (1-20 text, 21-30 numbers). */
export function customFieldType(name: string): 'string' | 'number' | undefined {
  const match = /^field([1-9]|[12][0-9]|30)$/.exec(name);
  if (!match) return undefined;
  return Number(match[1]) <= 20 ? 'string' : 'number';
}
