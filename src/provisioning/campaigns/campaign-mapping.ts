import type { AdPlatformType, CampaignDraft, CampaignTree } from '../../platforms/connector.js';

/**
 * What differs between the two search platforms when a campaign is copied, in one place.
 * Pure: a source tree and the target platform in, a draft and the list of changes out.
 *
 * | aspect | GOOGLE_ADS | MICROSOFT_ADVERTISING | mapping |
 * |---|---|---|---|
 * | campaign name | <= 255 | <= 128 | cut to the target's limit (noted) |
 * | keyword text | <= 80 | <= 100 | a keyword too long for the target is left out (noted) |
 * | match types | EXACT, PHRASE, BROAD | EXACT, PHRASE, BROAD | same names |
 * | ad types | new ads only RESPONSIVE_SEARCH_AD | RESPONSIVE_SEARCH_AD, EXPANDED_TEXT_AD | EXPANDED_TEXT_AD becomes RESPONSIVE_SEARCH_AD on GOOGLE_ADS (noted) |
 * | headline / description | <= 30 / <= 90 | <= 30 / <= 90 | same |
 * | daily budget | currency units (micros inside) | currency units, 2 decimals | rounded to cents, at least 1; same currency required |
 * | ids | | | never copied: the target assigns new ones; the copy records both |
 * | REMOVED entities | | | not copied |
 */
export const LIMITS: Readonly<
  Record<
    'GOOGLE_ADS' | 'MICROSOFT_ADVERTISING',
    { campaignName: number; keywordText: number; adTypes: readonly string[] }
  >
> = {
  GOOGLE_ADS: { campaignName: 255, keywordText: 80, adTypes: ['RESPONSIVE_SEARCH_AD'] },
  MICROSOFT_ADVERTISING: { campaignName: 128, keywordText: 100, adTypes: ['RESPONSIVE_SEARCH_AD', 'EXPANDED_TEXT_AD'] },
};

export type SearchPlatform = keyof typeof LIMITS;

export function isSearchPlatform(platform: AdPlatformType): platform is SearchPlatform {
  return platform === 'GOOGLE_ADS' || platform === 'MICROSOFT_ADVERTISING';
}

export interface MappedCampaign {
  readonly draft: CampaignDraft;
  /** Human-readable changes the mapping made, stored with the copy's result. */
  readonly changes: readonly string[];
}

export function mapCampaignForPlatform(source: CampaignTree, target: SearchPlatform): MappedCampaign {
  const limits = LIMITS[target];
  const changes: string[] = [];
  let name = source.campaign.name;
  if (name.length > limits.campaignName) {
    name = name.slice(0, limits.campaignName);
    changes.push(`campaign name cut to ${limits.campaignName} characters`);
  }
  const dailyBudget = Math.max(1, Math.round(source.campaign.dailyBudget * 100) / 100);
  if (dailyBudget !== source.campaign.dailyBudget)
    changes.push(`daily budget ${source.campaign.dailyBudget} became ${dailyBudget}`);
  const adGroups = source.adGroups
    .filter((group) => group.status !== 'REMOVED')
    .map((group) => ({
      name: group.name,
      status: group.status,
      keywords: group.keywords
        .filter((keyword) => {
          if (keyword.status === 'REMOVED') return false;
          if (keyword.text.length <= limits.keywordText) return true;
          changes.push(`keyword "${keyword.text}" left out: longer than ${limits.keywordText} characters`);
          return false;
        })
        .map(({ text, matchType, status }) => ({ text, matchType, status })),
      ads: group.ads
        .filter((ad) => ad.status !== 'REMOVED')
        .map((ad) => {
          let adType = ad.adType;
          if (!limits.adTypes.includes(adType)) {
            changes.push(`ad "${ad.name}": ${adType} became RESPONSIVE_SEARCH_AD`);
            adType = 'RESPONSIVE_SEARCH_AD';
          }
          return {
            name: ad.name,
            status: ad.status,
            adType,
            headline: ad.headline,
            description: ad.description,
            finalUrl: ad.finalUrl,
          };
        }),
    }));
  return { draft: { name, status: source.campaign.status, dailyBudget, adGroups }, changes };
}
