import { AD_PLATFORM_ALIASES as PLATFORM_ALIASES } from '../shared/ad-platforms.js';

/**
 * The reporting levels (spec 4.3, supplement 5; search terms: issue 40): which entities a level
 * lists, which fact table and column carry its figures, and which of its fields rows show and
 * filters, sorts and embeds may name. The SQL that lists a level's entities (columns named as
 * the row keys) is the compiler's (src/sql/level-sources.ts); nothing here is user text.
 */
export type LevelPath =
  'accounts' | 'adplatform-accounts' | 'campaigns' | 'adgroups' | 'keywords' | 'ads' | 'search-terms';

export interface DimensionField {
  /** As filters and sorts name it (`name`, `campaignId`, ...). */
  readonly name: string;
  readonly type: 'string' | 'number';
  /** The entity column it reads (a row key; the dialect quotes it). */
  readonly column: string;
  /** Values that mean another (ADWORDS means GOOGLE_ADS). */
  readonly aliases?: Readonly<Record<string, string>>;
}

export interface LevelDefinition {
  readonly path: LevelPath;
  /** Key of the response's row list. */
  readonly plural: string;
  readonly factTable: 'fact_ad_daily' | 'fact_keyword_daily' | 'fact_search_term_daily';
  /** The fact column holding the entity id; null for accounts, reached through their links. */
  readonly factKey: string | null;
  /** Row keys in output order, besides statistics, segments, formulas and embeds. */
  readonly rowKeys: readonly string[];
  readonly fields: readonly DimensionField[];
  /** `name`, `text` or `searchTerm`: the exact-match parameter of this level (`*` wildcard), a row key. */
  readonly nameParameter: 'name' | 'text' | 'searchTerm';
  /** The level's labels: their table, its column naming the entity, and the entities' table (which holds the organization). */
  readonly labels?: { readonly table: string; readonly key: string; readonly owner: string } | undefined;
  readonly customFields: boolean;
  /**
   * The entity column holding its ad platform account's id, for the `accountId` filter (true when
   * that platform account is linked to the account); undefined on accounts, which have `id`.
   */
  readonly platformAccountColumn: string | undefined;
  readonly embeds: readonly EmbedName[];
}

/** What rows may embed (`embed=`), on the levels that have it. */
export const EMBED_NAMES = ['labels', 'customFields', 'images', 'specificFields'] as const;
export type EmbedName = (typeof EMBED_NAMES)[number];

const field = (
  name: string,
  type: 'string' | 'number',
  aliases?: Readonly<Record<string, string>>,
): DimensionField => ({
  name,
  type,
  column: name,
  ...(aliases ? { aliases } : {}),
});

export const LEVELS: readonly LevelDefinition[] = [
  {
    path: 'accounts',
    plural: 'accounts',
    factTable: 'fact_ad_daily',
    factKey: null,
    rowKeys: ['id', 'name', 'currency'],
    fields: [field('id', 'number'), field('name', 'string'), field('currency', 'string')],
    nameParameter: 'name',
    labels: { table: 'account_labels', key: 'account_id', owner: 'accounts' },
    customFields: true,
    platformAccountColumn: undefined,
    embeds: ['labels', 'customFields'],
  },
  {
    path: 'adplatform-accounts',
    plural: 'adPlatformAccounts',
    factTable: 'fact_ad_daily',
    factKey: 'adplatform_account_id',
    // timeZone (issue 40): the zone the platform reports the account's days and hours in.
    rowKeys: ['id', 'name', 'adPlatformType', 'adPlatformId', 'currency', 'timeZone'],
    fields: [
      field('id', 'number'),
      field('name', 'string'),
      field('adPlatformType', 'string', PLATFORM_ALIASES),
      field('adPlatformId', 'string'),
      field('currency', 'string'),
      field('timeZone', 'string'),
    ],
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
    rowKeys: ['id', 'name', 'adPlatformAccountId', 'adPlatformAccountType', 'status', 'currency'],
    fields: [
      field('id', 'number'),
      field('name', 'string'),
      field('adPlatformAccountId', 'number'),
      field('adPlatformAccountType', 'string', PLATFORM_ALIASES),
      { ...field('adPlatformType', 'string', PLATFORM_ALIASES), column: 'adPlatformAccountType' },
      field('status', 'string'),
      field('currency', 'string'),
    ],
    nameParameter: 'name',
    labels: { table: 'campaign_labels', key: 'campaign_id', owner: 'campaigns' },
    customFields: false,
    platformAccountColumn: 'adPlatformAccountId',
    embeds: ['labels'],
  },
  {
    path: 'adgroups',
    plural: 'adGroups',
    factTable: 'fact_ad_daily',
    factKey: 'ad_group_id',
    rowKeys: [
      'id',
      'name',
      'adPlatformAccountId',
      'campaignId',
      'adPlatformAccountType',
      'adPlatformId',
      'status',
      'currency',
    ],
    fields: [
      field('id', 'number'),
      field('name', 'string'),
      field('adPlatformAccountId', 'number'),
      field('campaignId', 'number'),
      field('adPlatformAccountType', 'string', PLATFORM_ALIASES),
      { ...field('adPlatformType', 'string', PLATFORM_ALIASES), column: 'adPlatformAccountType' },
      field('adPlatformId', 'string'),
      field('status', 'string'),
      field('currency', 'string'),
    ],
    nameParameter: 'name',
    customFields: false,
    platformAccountColumn: 'adPlatformAccountId',
    embeds: [],
  },
  {
    path: 'keywords',
    plural: 'keywords',
    factTable: 'fact_keyword_daily',
    factKey: 'keyword_id',
    rowKeys: [
      'id',
      'text',
      'adPlatformAccountId',
      'campaignId',
      'adGroupId',
      'adPlatformAccountType',
      'adPlatformId',
      'matchType',
      'status',
      'currency',
    ],
    fields: [
      field('id', 'number'),
      field('text', 'string'),
      field('adPlatformAccountId', 'number'),
      field('campaignId', 'number'),
      field('adGroupId', 'number'),
      field('adPlatformAccountType', 'string', PLATFORM_ALIASES),
      { ...field('adPlatformType', 'string', PLATFORM_ALIASES), column: 'adPlatformAccountType' },
      field('adPlatformId', 'string'),
      field('matchType', 'string'),
      field('status', 'string'),
      field('currency', 'string'),
    ],
    nameParameter: 'text',
    customFields: false,
    platformAccountColumn: 'adPlatformAccountId',
    embeds: [],
  },
  {
    path: 'ads',
    plural: 'ads',
    factTable: 'fact_ad_daily',
    factKey: 'ad_id',
    rowKeys: [
      'id',
      'name',
      'adPlatformAccountId',
      'campaignId',
      'adGroupId',
      'adPlatformAccountType',
      'adType',
      'status',
      'currency',
    ],
    fields: [
      field('id', 'number'),
      field('name', 'string'),
      field('adPlatformAccountId', 'number'),
      field('campaignId', 'number'),
      field('adGroupId', 'number'),
      field('adPlatformAccountType', 'string', PLATFORM_ALIASES),
      { ...field('adPlatformType', 'string', PLATFORM_ALIASES), column: 'adPlatformAccountType' },
      field('adType', 'string'),
      field('status', 'string'),
      field('currency', 'string'),
    ],
    nameParameter: 'name',
    customFields: false,
    platformAccountColumn: 'adPlatformAccountId',
    embeds: ['images', 'specificFields'],
  },
  {
    // Issue 40 item 5: derived from the keywords (./search-terms.ts), GOOGLE_ADS and MICROSOFT_ADVERTISING only.
    path: 'search-terms',
    plural: 'searchTerms',
    factTable: 'fact_search_term_daily',
    factKey: 'search_term_id',
    rowKeys: [
      'id',
      'searchTerm',
      'adPlatformAccountId',
      'campaignId',
      'adGroupId',
      'keywordId',
      'keywordText',
      'adPlatformAccountType',
      'matchType',
      'currency',
    ],
    fields: [
      field('id', 'number'),
      field('searchTerm', 'string'),
      field('adPlatformAccountId', 'number'),
      field('campaignId', 'number'),
      field('adGroupId', 'number'),
      field('keywordId', 'number'),
      field('keywordText', 'string'),
      field('adPlatformAccountType', 'string', PLATFORM_ALIASES),
      { ...field('adPlatformType', 'string', PLATFORM_ALIASES), column: 'adPlatformAccountType' },
      field('matchType', 'string'),
      field('currency', 'string'),
    ],
    nameParameter: 'searchTerm',
    customFields: false,
    platformAccountColumn: 'adPlatformAccountId',
    embeds: [],
  },
];

export const LEVEL_BY_PATH: ReadonlyMap<LevelPath, LevelDefinition> = new Map(LEVELS.map((l) => [l.path, l]));

/** The definition of a level path the planner has already checked. */
export function levelOf(path: LevelPath): LevelDefinition {
  return LEVEL_BY_PATH.get(path)!;
}

/** Account custom fields as filters name them: customFields.field1 .. field30 (1-20 text, 21-30 numbers). */
export function customFieldType(name: string): 'string' | 'number' | undefined {
  const match = /^field([1-9]|[12][0-9]|30)$/.exec(name);
  if (!match) return undefined;
  return Number(match[1]) <= 20 ? 'string' : 'number';
}
