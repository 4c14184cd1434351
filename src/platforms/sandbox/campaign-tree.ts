import type { EntityStatus, PlatformAd, PlatformAdGroup, PlatformKeyword } from '../connector.js';
import type { AccountProfile } from './accounts.js';
import { DESCRIPTION_LENGTH, HEADLINE_LENGTH } from './campaign-drafts.js';
import type { CampaignPlan } from './campaigns.js';
import type { IdScheme } from './ids.js';
import { Rng } from './random.js';
import { CALLS_TO_ACTION, KEYWORD_PREFIXES, KEYWORD_SUFFIXES, slug, titleCase } from './vocabulary.js';

/**
 * The children of one campaign, derived from the campaign's seed: 2-8 ad groups; on the search
 * platforms 5-25 keywords and 2-4 text ads each, on FACEBOOK ad sets with 1-6 image, video or
 * carousel ads and no keywords.
 */
export function campaignChildren(scheme: IdScheme, profile: AccountProfile, plan: CampaignPlan): PlatformAdGroup[] {
  const rng = Rng.of(plan.seed, 'tree');
  const count = 2 + Math.floor(7 * rng.next() ** 1.5);
  const social = scheme.platform === 'FACEBOOK';
  const groups: PlatformAdGroup[] = [];
  for (let index = 0; index < count; index++) {
    const groupRng = Rng.of(plan.seed, 'ad-group', index);
    const path = { payload: profile.payload, campaign: plan.slot, adGroup: index };
    const adGroupId = scheme.entityId({ kind: 'AD_GROUP', ...path });
    const itemId = (kind: 'AD' | 'KEYWORD', item: number) => scheme.entityId({ kind, ...path, item });
    groups.push(
      social
        ? adSet(groupRng, profile, plan, adGroupId, itemId)
        : searchAdGroup(groupRng, profile, plan, index, adGroupId, itemId),
    );
  }
  return groups;
}

type ItemId = (kind: 'AD' | 'KEYWORD', item: number) => string;

function searchAdGroup(
  rng: Rng,
  profile: AccountProfile,
  plan: CampaignPlan,
  index: number,
  id: string,
  itemId: ItemId,
): PlatformAdGroup {
  const theme = profile.theme;
  // The first ad group covers the campaign's product plainly; the others a variant of it.
  const product =
    theme.products[index === 0 || rng.chance(0.7) ? plan.product : rng.int(0, theme.products.length - 1)] ?? '';
  const modifier = index === 0 ? undefined : rng.pick(theme.modifiers);
  const stem = modifier ? `${modifier} ${product}` : product;
  const candidates = keywordCandidates(stem);
  const keywordCount = rng.int(5, 25);
  const picks = [0, ...rng.distinctInts(candidates.length, candidates.length).filter((i) => i !== 0)].slice(
    0,
    keywordCount,
  );
  const keywords: PlatformKeyword[] = picks.map((pick, item) => ({
    adPlatformId: itemId('KEYWORD', item),
    text: candidates[pick] ?? stem,
    matchType: rng.weighted(MATCH_TYPES, (m) => m.weight).type,
    status: childStatus(rng),
  }));
  const site = `https://www.${slug(profile.name)}.example`;
  const ads: PlatformAd[] = [];
  const adCount = rng.int(2, 4);
  for (let item = 0; item < adCount; item++) {
    const responsive = item === 0 || rng.chance(0.7);
    ads.push({
      adPlatformId: itemId('AD', item),
      name: `${titleCase(stem)} ${responsive ? 'RSA' : 'ETA'} ${item + 1}`,
      status: childStatus(rng),
      adType: responsive ? 'RESPONSIVE_SEARCH_AD' : 'EXPANDED_TEXT_AD',
      // Within the search platforms' own limits (campaign-drafts.ts), as a real platform's ads are.
      headline: fitting(rng.pick(HEADLINES), HEADLINES, (make) => make(titleCase(stem), profile.name), HEADLINE_LENGTH),
      description: fitting(
        rng.pick(DESCRIPTIONS),
        DESCRIPTIONS,
        (make) => make(stem, profile.currency),
        DESCRIPTION_LENGTH,
      ),
      finalUrl: `${site}/${slug(product)}${modifier ? `?variant=${slug(modifier)}` : ''}`,
    });
  }
  return { adPlatformId: id, name: titleCase(stem), status: childStatus(rng), keywords, ads };
}

function adSet(rng: Rng, profile: AccountProfile, plan: CampaignPlan, id: string, itemId: ItemId): PlatformAdGroup {
  const theme = profile.theme;
  const audience = rng.pick(theme.audiences);
  const ages = rng.pick(['18-24', '25-34', '25-44', '35-54', '45-65+', '18-65+']);
  const placement = rng.pick(['Feed', 'Stories', 'Reels', 'Advantage+ placements']);
  const product = theme.products[plan.product] ?? '';
  const pageId = String(100_000_000_000_000 + Math.floor(Rng.of(profile.seed, 'page').next() * 899_999_999_999_999));
  const site = `https://www.${slug(profile.name)}.example`;
  const ads: PlatformAd[] = [];
  const adCount = rng.int(1, 6);
  for (let item = 0; item < adCount; item++) {
    const adId = itemId('AD', item);
    const adType = rng.weighted(SOCIAL_AD_TYPES, (t) => t.weight).type;
    const cards = adType === 'CAROUSEL' ? rng.int(3, 5) : 1;
    const imageUrls = Array.from(
      { length: cards },
      (_, card) => `https://cdn.sandbox.example/fb/${adId}/${card + 1}_1080x1080.jpg`,
    );
    const specificFields: Record<string, string> = { callToAction: rng.pick(CALLS_TO_ACTION), pageId };
    if (adType === 'VIDEO') specificFields.videoId = String(1e15 + Math.floor(rng.next() * 8e15));
    if (adType === 'CAROUSEL') specificFields.cardCount = String(cards);
    ads.push({
      adPlatformId: adId,
      name: `${titleCase(product)} ${adType.toLowerCase()} ${item + 1}`,
      status: childStatus(rng),
      adType,
      headline: rng.pick(HEADLINES)(titleCase(product), profile.name),
      description: rng.pick(DESCRIPTIONS)(product, profile.currency),
      finalUrl: `${site}/${slug(product)}?utm_source=facebook&utm_medium=paid_social`,
      imageUrls,
      specificFields,
    });
  }
  return {
    adPlatformId: id,
    name: `${audience} | ${ages} | ${placement}`,
    status: childStatus(rng),
    keywords: [],
    ads,
  };
}

/** The picked template's text if it fits, else the first template that does, else the picked one cut at a word. */
function fitting<T>(picked: T, templates: readonly T[], render: (template: T) => string, max: number): string {
  const first = render(picked);
  if (first.length <= max) return first;
  for (const template of templates) {
    const text = render(template);
    if (text.length <= max) return text;
  }
  const cut = first.slice(0, max + 1);
  const space = cut.lastIndexOf(' ');
  return (space > 0 ? cut.slice(0, space) : first.slice(0, max)).replace(/[\s|:,.-]+$/, '');
}

/** The stem first, then what people type around it. */
function keywordCandidates(stem: string): string[] {
  const out = [stem, ...KEYWORD_PREFIXES.map((p) => `${p} ${stem}`), ...KEYWORD_SUFFIXES.map((s) => `${stem} ${s}`)];
  for (const p of KEYWORD_PREFIXES) for (const s of KEYWORD_SUFFIXES) out.push(`${p} ${stem} ${s}`);
  return out;
}

function childStatus(rng: Rng): EntityStatus {
  return rng.chance(0.1) ? 'PAUSED' : 'ENABLED';
}

const MATCH_TYPES: ReadonlyArray<{ type: PlatformKeyword['matchType']; weight: number }> = [
  { type: 'EXACT', weight: 35 },
  { type: 'PHRASE', weight: 40 },
  { type: 'BROAD', weight: 25 },
];

const SOCIAL_AD_TYPES = [
  { type: 'IMAGE', weight: 50 },
  { type: 'VIDEO', weight: 25 },
  { type: 'CAROUSEL', weight: 25 },
] as const;

const HEADLINES: ReadonlyArray<(product: string, account: string) => string> = [
  (product, account) => `${product} | ${account}`,
  (product) => `Shop ${product} Online`,
  (product) => `${product} - Up to 40% Off`,
  (product) => `New ${product} Collection`,
  (product) => `${product}: Free Delivery`,
];

const DESCRIPTIONS: ReadonlyArray<(product: string, currency: string) => string> = [
  (_, currency) => `Free shipping on orders over 50 ${currency}. Order today, delivered in 2-3 days.`,
  (product) => `Discover our ${product} range. Fast delivery and free 30-day returns.`,
  (product) => `Compare ${product} models and prices. Trusted by over 100,000 customers.`,
  (product) => `Top rated ${product} at fair prices. Secure checkout and friendly support.`,
];
