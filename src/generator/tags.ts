/**
 * The numeric tags that name each random draw (the second argument of every hash). Appending a
 * name keeps every earlier draw, so data of a seed stays the same; reordering changes it.
 */
const NAMES = [
  // accounts
  'accountMarket', 'accountLanguage', 'accountTheme', 'accountBrand', 'accountVolume', 'accountGrowth', 'accountAgency',
  'accountOffice', 'accountTier', 'accountHasGoogle', 'accountHasMicrosoft', 'accountHasFacebook', 'accountBudget', 'accountRoas',
  // platform accounts
  'paVolume', 'paCampaigns', 'paAudience',
  // campaigns
  'campaignKind', 'campaignProduct', 'campaignStarts', 'campaignStart', 'campaignEndsEarly', 'campaignEnd', 'campaignPaused',
  'campaignPartners', 'campaignDisplay', 'campaignVolume', 'campaignCtr', 'campaignCpc', 'campaignCvr', 'campaignOrderValue',
  'campaignCalls', 'campaignCallRate', 'campaignShareLow', 'campaignShare', 'campaignBudgetLost', 'campaignTop', 'campaignAbsTop',
  'campaignSegmentLength', 'campaignSegmentStart', 'campaignAdGroups', 'campaignTeam', 'campaignTeamValue', 'campaignObjective',
  'campaignObjectiveValue', 'campaignAudience',
  // ad groups
  'adGroupStatus', 'adGroupEnd', 'adGroupWeight', 'adGroupProduct', 'adGroupProductPick', 'adGroupModifier', 'adGroupAds',
  'adGroupKeywords', 'adGroupAges', 'adGroupPlacement',
  // ads
  'adStatus', 'adEnd', 'adWeight', 'adResponsive', 'adHeadline', 'adDescription', 'adSocialType', 'adCards', 'adCallToAction',
  'adVideo', 'adOffset', 'adStep',
  // keywords
  'keywordStatus', 'keywordEnd', 'keywordMatch', 'keywordCtr', 'keywordTextOffset',
  // markups
  'markupAccount', 'markupCount', 'markupRate', 'markupStartTrim', 'markupEndTrim', 'markupOpen', 'markupDecimals',
  // facts
  'campaignDay', 'adGroupDay', 'adRow', 'adRowClicks', 'adRowConversions', 'keywordRow', 'keywordRowClicks', 'keywordRowConversions',
  'shareDay', 'audienceRun', 'call', 'callDuration',
  // appended later
  'campaignDormant',
] as const;

export type TagName = (typeof NAMES)[number];

export const TAG: Readonly<Record<TagName, number>> = Object.fromEntries(NAMES.map((name, i) => [name, i + 1])) as Record<TagName, number>;
