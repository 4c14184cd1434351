import type { CampaignDraft, CampaignTree, EntityStatus, PlatformAdGroup } from '../connector.js';
import { CREATED_AD_GROUP_SLOTS, CREATED_AD_SLOTS, CREATED_KEYWORD_SLOTS, type IdScheme } from './ids.js';

/**
 * What the search platforms accept from createCampaign and updateCampaign (README.md lists the
 * rules). `checkDraft` answers the first rule a draft breaks, naming the item, or undefined.
 */
export type SearchPlatform = 'GOOGLE_ADS' | 'MICROSOFT_ADVERTISING';

interface Rules {
  readonly campaignName: number;
  readonly keywordText: number;
  /** Ad types that can be created now (GOOGLE_ADS stopped taking new expanded text ads). */
  readonly adTypes: readonly string[];
}

export const DRAFT_RULES: Readonly<Record<SearchPlatform, Rules>> = {
  GOOGLE_ADS: { campaignName: 255, keywordText: 80, adTypes: ['RESPONSIVE_SEARCH_AD'] },
  MICROSOFT_ADVERTISING: { campaignName: 128, keywordText: 100, adTypes: ['RESPONSIVE_SEARCH_AD', 'EXPANDED_TEXT_AD'] },
};
/** Both platforms. */
export const NAME_LENGTH = 255;
export const HEADLINE_LENGTH = 30;
export const DESCRIPTION_LENGTH = 90;
export const MIN_DAILY_BUDGET = 1;
const STATUSES: readonly string[] = ['ENABLED', 'PAUSED', 'REMOVED'];
const MATCH_TYPES: readonly string[] = ['EXACT', 'PHRASE', 'BROAD'];

export function checkDraft(platform: SearchPlatform, draft: CampaignDraft): string | undefined {
  const rules = DRAFT_RULES[platform];
  const campaign = `campaign "${draft.name}"`;
  const problem =
    length(draft.name, 1, rules.campaignName, 'the campaign name') ??
    status(draft.status) ??
    budget(draft.dailyBudget) ??
    (draft.adGroups.length > CREATED_AD_GROUP_SLOTS
      ? `it has ${draft.adGroups.length} ad groups; at most ${CREATED_AD_GROUP_SLOTS} are allowed`
      : undefined);
  if (problem) return `${campaign}: ${problem}`;
  for (const [g, group] of draft.adGroups.entries()) {
    const where = `${campaign}, ad group ${g + 1} "${group.name}"`;
    const groupProblem =
      length(group.name, 1, NAME_LENGTH, 'the ad group name') ??
      status(group.status) ??
      (group.keywords.length > CREATED_KEYWORD_SLOTS
        ? `it has ${group.keywords.length} keywords; at most ${CREATED_KEYWORD_SLOTS} are allowed`
        : undefined) ??
      (group.ads.length > CREATED_AD_SLOTS
        ? `it has ${group.ads.length} ads; at most ${CREATED_AD_SLOTS} are allowed`
        : undefined);
    if (groupProblem) return `${where}: ${groupProblem}`;
    for (const [k, keyword] of group.keywords.entries()) {
      const keywordProblem =
        length(keyword.text, 1, rules.keywordText, 'the keyword text') ??
        (MATCH_TYPES.includes(keyword.matchType)
          ? undefined
          : `match type ${String(keyword.matchType)} is not one of ${MATCH_TYPES.join(', ')}`) ??
        status(keyword.status);
      if (keywordProblem) return `${where}, keyword ${k + 1} "${keyword.text}": ${keywordProblem}`;
    }
    for (const [a, ad] of group.ads.entries()) {
      const adProblem =
        length(ad.name, 1, NAME_LENGTH, 'the ad name') ??
        status(ad.status) ??
        (rules.adTypes.includes(ad.adType)
          ? undefined
          : `ad type ${ad.adType} cannot be created on ${platform}; it accepts ${rules.adTypes.join(', ')}`) ??
        length(ad.headline, 1, HEADLINE_LENGTH, 'the headline') ??
        length(ad.description, 1, DESCRIPTION_LENGTH, 'the description') ??
        url(ad.finalUrl);
      if (adProblem) return `${where}, ad ${a + 1} "${ad.name}": ${adProblem}`;
    }
  }
  return undefined;
}

/**
 * The tree a created campaign has: the draft's content with ids by position (ad group g, its
 * keyword k and ad a), so a replacement keeps the ids of whatever is still at the same place.
 */
export function createdTree(scheme: IdScheme, index: number, draft: CampaignDraft, createdOn: string): CampaignTree {
  const adGroups: PlatformAdGroup[] = draft.adGroups.map((group, adGroup) => ({
    adPlatformId: scheme.createdEntityId({ kind: 'AD_GROUP', campaign: index, adGroup }),
    name: group.name,
    status: group.status,
    keywords: group.keywords.map((keyword, item) => ({
      adPlatformId: scheme.createdEntityId({ kind: 'KEYWORD', campaign: index, adGroup, item }),
      text: keyword.text,
      matchType: keyword.matchType,
      status: keyword.status,
    })),
    ads: group.ads.map((ad, item) => ({
      adPlatformId: scheme.createdEntityId({ kind: 'AD', campaign: index, adGroup, item }),
      name: ad.name,
      status: ad.status,
      adType: ad.adType,
      headline: ad.headline,
      description: ad.description,
      finalUrl: ad.finalUrl,
    })),
  }));
  return {
    campaign: {
      adPlatformId: scheme.createdEntityId({ kind: 'CAMPAIGN', campaign: index }),
      name: draft.name,
      status: draft.status,
      dailyBudget: draft.dailyBudget,
      createdOn,
    },
    adGroups,
  };
}

/**
 * The tree with one pushed change applied (a created campaign keeps its state in its tree, so
 * a later replacement starts clean); undefined when the entity is not in this tree.
 */
export function withChange(
  tree: CampaignTree,
  entity: string,
  id: string,
  field: 'status' | 'name',
  value: string,
): CampaignTree | undefined {
  let found = false;
  const edit = <T extends { readonly adPlatformId: string }>(item: T, kind: string): T => {
    if (kind !== entity || item.adPlatformId !== id) return item;
    found = true;
    return { ...item, [field]: value };
  };
  const result: CampaignTree = {
    campaign: edit(tree.campaign, 'CAMPAIGN'),
    adGroups: tree.adGroups.map((group) => ({
      ...edit(group, 'AD_GROUP'),
      keywords: group.keywords.map((keyword) => edit(keyword, 'KEYWORD')),
      ads: group.ads.map((ad) => edit(ad, 'AD')),
    })),
  };
  return found ? result : undefined;
}

function length(text: string, min: number, max: number, what: string): string | undefined {
  if (typeof text !== 'string') return `${what} is missing`;
  if (text.trim().length < min) return `${what} is empty`;
  return text.length > max ? `${what} has ${text.length} characters; at most ${max} are allowed` : undefined;
}

function status(value: EntityStatus): string | undefined {
  return STATUSES.includes(value) ? undefined : `status ${String(value)} is not one of ${STATUSES.join(', ')}`;
}

function budget(value: number): string | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < MIN_DAILY_BUDGET) {
    return `the daily budget ${String(value)} is not a number of at least ${MIN_DAILY_BUDGET}`;
  }
  return Math.round(value * 100) / 100 === value ? undefined : `the daily budget ${value} has more than 2 decimals`;
}

function url(value: string): string | undefined {
  let parsed: URL | undefined;
  try {
    parsed = new URL(value);
  } catch {
    parsed = undefined;
  }
  return parsed && (parsed.protocol === 'https:' || parsed.protocol === 'http:')
    ? undefined
    : `the final URL ${JSON.stringify(value)} is not an absolute http(s) URL`;
}
