import { CALLS_TO_ACTION, KEYWORD_PREFIXES, KEYWORD_SUFFIXES, PROMOTIONS } from '../platforms/sandbox/vocabulary.js';
import type { Executor } from '../store/database.js';
import { columnSum, reserveIds } from './ids.js';
import type { GenerateOptions } from './options.js';
import { Draws, permute, sqlStringList } from './sql.js';
import { TAG } from './tags.js';
import { FACEBOOK, GOOGLE, MICROSOFT, NET_DISPLAY, NET_PARTNERS, NET_SEARCH, NET_SOCIAL } from './traffic.js';

/**
 * Imported campaign trees under the platform accounts of gen_pas: campaigns with their system
 * and client labels, ad groups, ads and (search platforms) keywords, each with an active day
 * range inside which it has facts, and the volumes, prices and rates the facts are drawn from.
 * Leaves TEMP tables gen_campaigns, gen_ad_groups, gen_ads and gen_keywords.
 */

/** Daily search impressions of a median campaign of a median account before calibration. */
const CAMPAIGN_BASE_VOLUME = 300;

const SEARCH_KINDS = ['Brand', 'Generic', 'Competitor', 'Promotions'];
const SEARCH_KIND_WEIGHTS = [0.15, 0.5, 0.1, 0.25];
const SOCIAL_KINDS = ['Prospecting', 'Retargeting', 'Awareness'];
const SOCIAL_KIND_WEIGHTS = [0.55, 0.3, 0.15];
const TEAMS = ['north', 'south', 'east', 'west', 'central'];
const OBJECTIVES = ['sales', 'leads', 'awareness', 'app-installs'];
const AGES = ['18-24', '25-34', '25-44', '35-54', '45-65+', '18-65+'];
const PLACEMENTS = ['Feed', 'Stories', 'Reels', 'Advantage+ placements'];
/** Keyword texts per ad group stem: the stem, prefix+stem, stem+suffix, prefix+stem+suffix. */
const KEYWORD_VARIANTS =
  1 + KEYWORD_PREFIXES.length + KEYWORD_SUFFIXES.length + KEYWORD_PREFIXES.length * KEYWORD_SUFFIXES.length;

export interface TreeCounts {
  readonly campaigns: number;
  readonly adGroups: number;
  readonly ads: number;
  readonly keywords: number;
  /** First ids of this run, to turn a fact row's id back into its run-local index. */
  readonly firstIds: { readonly ad: number; readonly keyword: number };
}

export async function createCampaignTrees(
  tx: Executor,
  d: Draws,
  options: GenerateOptions,
  firstDay: string,
): Promise<TreeCounts> {
  const lastIdx = options.days - 1;
  // Campaigns: 3-40 per platform account, most platform accounts near the low end. About as many
  // start during the range (30 %) as stop during it (30 %), so the season is not drowned by drift.
  const campaignCount = await columnSum(tx, 'gen_pas', 'n_campaigns');
  const campaignFirst = await reserveIds(tx, 'campaign_id_seq', campaignCount);
  const c = 'x.local';
  const kind = `CASE WHEN x.platform = ${FACEBOOK}
      THEN ${sqlStringList(SOCIAL_KINDS)}[1 + ${d.weightedIndex(SOCIAL_KIND_WEIGHTS, TAG.campaignKind, c)}]
      ELSE ${sqlStringList(SEARCH_KINDS)}[1 + ${d.weightedIndex(SEARCH_KIND_WEIGHTS, TAG.campaignKind, c)}] END`;
  await tx.run(`CREATE OR REPLACE TEMP TABLE gen_campaigns AS
    WITH x AS (
      SELECT row_number() OVER (ORDER BY p.local, t.k) - 1 AS local, t.k AS k, p.local AS pa_local, p.id AS pa_id, p.org_k, p.org_id, p.platform,
             p.ad_platform_type, p.account_local, p.volume AS pa_volume, p.audience, p.theme, p.currency, p.currency_scale, p.decimals,
             p.growth, p.site_slug, p.brand, p.country, p.time_zone, p.page_id
        FROM gen_pas p, range(p.n_campaigns) t(k)
    ), y AS (
      SELECT x.*, ${kind} AS kind,
             (${d.hash(TAG.campaignProduct, c)} % len(th.products))::INTEGER AS product,
             CASE WHEN ${d.u(TAG.campaignStarts, c)} < 0.7 THEN 0 ELSE floor(${d.u(TAG.campaignStart, c)} * ${options.days} * 0.9)::INTEGER END AS start_idx,
             ${d.u(TAG.campaignEndsEarly, c)} < 0.3 AS ends_early,
             th.cpc AS theme_cpc, th.order_value AS theme_order_value, th.label AS theme_label,
             th.products, th.product_titles, th.audiences
        FROM x JOIN gen_themes th ON th.idx = x.theme
    ), z AS (
      -- ~5 % ended before the range: imported, listed in reports with zero statistics, no facts.
      SELECT y.*,
             CASE WHEN ${d.u(TAG.campaignDormant, 'local')} < 0.05 THEN -1
                  WHEN ends_early THEN start_idx + floor(${d.u(TAG.campaignEnd, 'local')} * (${lastIdx} - start_idx))::INTEGER ELSE ${lastIdx} END AS end_idx
        FROM y
    )
    SELECT z.* EXCLUDE (products, audiences, product_titles, ends_early), ${campaignFirst} + local AS id,
           products[product + 1] AS product_text, product_titles[product + 1] AS product_title,
           audiences[1 + (${d.hash(TAG.campaignAudience, 'local')} % len(audiences))::INTEGER] AS audience_text,
           CASE WHEN end_idx < ${lastIdx} THEN CASE WHEN ${d.u(TAG.campaignPaused, 'local')} < 0.4 THEN 'PAUSED' ELSE 'REMOVED' END ELSE 'ENABLED' END AS status,
           CASE platform
             WHEN ${GOOGLE} THEN ${NET_SEARCH} | CASE WHEN ${d.u(TAG.campaignPartners, 'local')} < 0.6 THEN ${NET_PARTNERS} ELSE 0 END
                                 | CASE WHEN ${d.u(TAG.campaignDisplay, 'local')} < 0.25 THEN ${NET_DISPLAY} ELSE 0 END
             WHEN ${MICROSOFT} THEN ${NET_SEARCH} | CASE WHEN ${d.u(TAG.campaignPartners, 'local')} < 0.5 THEN ${NET_PARTNERS} ELSE 0 END
             ELSE ${NET_SOCIAL} END AS net_mask,
           ${CAMPAIGN_BASE_VOLUME} * pa_volume * ${d.lognormal(1.0, TAG.campaignVolume, 'local')} AS volume,
           ${d.lognormal(0.3, TAG.campaignCtr, 'local')} * CASE kind WHEN 'Brand' THEN 2.2 WHEN 'Competitor' THEN 0.6 WHEN 'Retargeting' THEN 1.6 ELSE 1 END AS ctr_m,
           theme_cpc * currency_scale * ${d.lognormal(0.35, TAG.campaignCpc, 'local')} * CASE kind WHEN 'Brand' THEN 0.35 WHEN 'Competitor' THEN 1.4 ELSE 1 END AS cpc,
           0.03 * ${d.lognormal(0.5, TAG.campaignCvr, 'local')} * CASE kind WHEN 'Brand' THEN 1.8 WHEN 'Retargeting' THEN 2 WHEN 'Awareness' THEN 0.3 ELSE 1 END AS cvr,
           theme_order_value * currency_scale * ${d.lognormal(0.3, TAG.campaignOrderValue, 'local')} AS order_value,
           CASE WHEN platform <> ${FACEBOOK} AND ${d.u(TAG.campaignCalls, 'local')} < 0.3 THEN 0.02 + 0.08 * ${d.u(TAG.campaignCallRate, 'local')} ELSE 0 END AS call_rate,
           CASE WHEN ${d.u(TAG.campaignShareLow, 'local')} < 0.15 THEN 0.03 + 0.07 * ${d.u(TAG.campaignShare, 'local')}
                ELSE 0.1 + 0.85 * ${d.u(TAG.campaignShare, 'local')} END AS share_base,
           0.8 * ${d.u(TAG.campaignBudgetLost, 'local')} AS budget_lost_frac,
           0.3 + 0.5 * ${d.u(TAG.campaignTop, 'local')} AS top_rate,
           0.25 + 0.5 * ${d.u(TAG.campaignAbsTop, 'local')} AS abs_top_rate,
           greatest(1, floor(audience * (0.05 + 0.45 * ${d.u(TAG.campaignSegmentLength, 'local')})))::BIGINT AS seg_len,
           ${d.int(2, 12, TAG.campaignAdGroups, ['local'], 2)} AS n_ad_groups
      FROM z`);
  await tx.run(`CREATE OR REPLACE TEMP TABLE gen_campaigns AS
    SELECT *, floor(${d.u(TAG.campaignSegmentStart, 'local')} * (audience - seg_len + 1))::BIGINT AS seg_start,
           CASE platform
             WHEN ${GOOGLE} THEN (10000000000 + ${permute(options.seed, 'local', 90_000_000_000, 7)})::VARCHAR
             WHEN ${MICROSOFT} THEN (100000000 + ${permute(options.seed, 'local', 900_000_000, 8)})::VARCHAR
             ELSE (120000000000000000 + ${permute(options.seed, 'local', 800_000_000_000_000_000, 9)})::VARCHAR
           END AS ad_platform_id,
           CASE WHEN platform = ${FACEBOOK} THEN theme_label || ' | ' || audience_text || ' | ' || kind
                WHEN kind = 'Brand' THEN 'Brand | ' || brand || ' ' || theme_label
                WHEN kind = 'Promotions' THEN ${sqlStringList(PROMOTIONS)}[month(DATE '${firstDay}' + start_idx)] || ' ' || year(DATE '${firstDay}' + start_idx) || ' | ' || product_title
                ELSE product_title || ' | ' || kind END AS base_name
      FROM gen_campaigns`);
  await tx.run(`INSERT INTO campaigns (id, organization_id, adplatform_account_id, ad_platform_type, ad_platform_id, name, status)
    SELECT id, org_id, pa_id, ad_platform_type, ad_platform_id,
           base_name || CASE WHEN row_number() OVER (PARTITION BY pa_id, base_name ORDER BY local) > 1
                             THEN ' ' || row_number() OVER (PARTITION BY pa_id, base_name ORDER BY local) ELSE '' END,
           status
      FROM gen_campaigns ORDER BY id`);
  await tx.run(`INSERT INTO campaign_labels (campaign_id, name, value)
    SELECT id, 'sys.campaignGroup', kind FROM gen_campaigns
    UNION ALL SELECT id, 'team', ${d.pick(TEAMS, TAG.campaignTeamValue, 'local')} FROM gen_campaigns WHERE ${d.u(TAG.campaignTeam, 'local')} < 0.6
    UNION ALL SELECT id, 'objective', ${d.pick(OBJECTIVES, TAG.campaignObjectiveValue, 'local')} FROM gen_campaigns WHERE ${d.u(TAG.campaignObjective, 'local')} < 0.4
    ORDER BY 1, 2`);

  // Ad groups: 2-12 per campaign; their traffic splits the campaign's by a log-normal weight.
  const adGroupCount = await columnSum(tx, 'gen_campaigns', 'n_ad_groups');
  const adGroupFirst = await reserveIds(tx, 'ad_group_id_seq', adGroupCount);
  const g = 'x.local';
  await tx.run(`CREATE OR REPLACE TEMP TABLE gen_ad_groups AS
    WITH x AS (
      SELECT row_number() OVER (ORDER BY c.local, t.k) - 1 AS local, t.k AS k, c.local AS campaign_local, c.id AS campaign_id, c.pa_id, c.pa_local,
             c.org_k, c.org_id, c.platform, c.net_mask, c.start_idx, c.end_idx AS campaign_end, c.volume AS campaign_volume,
             c.ctr_m, c.cpc, c.cvr, c.order_value, c.call_rate, c.growth, c.decimals, c.theme, c.product, c.site_slug, c.brand,
             c.currency, c.page_id
        FROM gen_campaigns c, range(c.n_ad_groups) t(k)
    ), y AS (
      SELECT x.*,
             ${weightedStatus(d, TAG.adGroupStatus, g, 0.85, 0.1)} AS status,
             round(1e6 * ${d.lognormal(0.8, TAG.adGroupWeight, g)})::BIGINT AS weight,
             CASE WHEN k = 0 OR ${d.u(TAG.adGroupProductPick, g)} < 0.7 THEN x.product
                  ELSE (${d.hash(TAG.adGroupProduct, g)} % len(th.products))::INTEGER END AS ag_product,
             CASE WHEN k = 0 THEN NULL ELSE 1 + (${d.hash(TAG.adGroupModifier, g)} % len(th.modifiers))::INTEGER END AS modifier,
             th.products, th.product_titles, th.modifiers, th.modifier_titles, th.audiences,
             ${d.int(2, 5, TAG.adGroupAds, [g])} AS n_ads,
             CASE WHEN x.platform = ${FACEBOOK} THEN 0 ELSE ${d.int(5, 30, TAG.adGroupKeywords, [g], 1.5)} END AS n_keywords,
             ${d.u(TAG.adGroupEnd, g)} AS end_u,
             ${d.pick(AGES, TAG.adGroupAges, g)} AS ages, ${d.pick(PLACEMENTS, TAG.adGroupPlacement, g)} AS placement
        FROM x JOIN gen_themes th ON th.idx = x.theme
    )
    SELECT y.* EXCLUDE (products, product_titles, modifiers, modifier_titles, audiences, weight, end_u),
           ${adGroupFirst} + local AS id,
           campaign_volume * weight / sum(weight) OVER (PARTITION BY campaign_local) AS volume,
           CASE WHEN status = 'ENABLED' THEN campaign_end ELSE start_idx + floor(end_u * (campaign_end - start_idx))::INTEGER END AS end_idx,
           products[ag_product + 1] AS product_text,
           product_titles[ag_product + 1] AS product_title,
           coalesce(modifiers[modifier] || ' ', '') || products[ag_product + 1] AS stem,
           coalesce(modifier_titles[modifier] || ' ', '') || product_titles[ag_product + 1] AS stem_title,
           CASE WHEN modifier IS NULL THEN '' ELSE '?variant=' || trim(lower(regexp_replace(modifiers[modifier], '[^A-Za-z0-9]+', '-', 'g')), '-') END AS variant,
           audiences[1 + (local % len(audiences))::INTEGER] AS audience_text,
           CASE platform
             WHEN ${GOOGLE} THEN (10000000000 + ${permute(options.seed, 'local', 90_000_000_000, 10)})::VARCHAR
             WHEN ${MICROSOFT} THEN (1000000000 + ${permute(options.seed, 'local', 9_000_000_000, 11)})::VARCHAR
             ELSE (120000000000000000 + ${permute(options.seed, 'local', 800_000_000_000_000_000, 12)})::VARCHAR
           END AS ad_platform_id
      FROM y`);
  await tx.run(`INSERT INTO ad_groups (id, organization_id, campaign_id, ad_platform_id, name, status)
    SELECT id, org_id, campaign_id, ad_platform_id,
           CASE WHEN platform = ${FACEBOOK} THEN audience_text || ' | ' || ages || ' | ' || placement ELSE stem_title END, status
      FROM gen_ad_groups ORDER BY id`);

  // Ads: 2-5 per ad group, text ads on search, image/video/carousel on FACEBOOK.
  const adCount = await columnSum(tx, 'gen_ad_groups', 'n_ads');
  const adFirst = await reserveIds(tx, 'ad_id_seq', adCount);
  const a = 'x.local';
  await tx.run(`CREATE OR REPLACE TEMP TABLE gen_ads AS
    WITH x AS (
      SELECT row_number() OVER (ORDER BY g.local, t.k) - 1 AS local, t.k AS k, g.local AS ad_group_local, g.id AS ad_group_id, g.org_id, g.platform,
             g.start_idx, g.end_idx AS ad_group_end, g.stem, g.stem_title, g.product_text, g.product_title, g.variant, g.site_slug, g.brand, g.currency, g.page_id
        FROM gen_ad_groups g, range(g.n_ads) t(k)
    )
    SELECT x.*, ${adFirst} + local AS id,
           ${weightedStatus(d, TAG.adStatus, a, 0.88, 0.08)} AS status,
           round(1e6 * ${d.lognormal(0.6, TAG.adWeight, a)})::BIGINT AS weight,
           ${d.u(TAG.adEnd, a)} AS end_u,
           CASE WHEN platform = ${FACEBOOK} THEN ${d.weighted(['IMAGE', 'VIDEO', 'CAROUSEL'], [50, 25, 25], TAG.adSocialType, a)}
                WHEN k = 0 OR ${d.u(TAG.adResponsive, a)} < 0.7 THEN 'RESPONSIVE_SEARCH_AD' ELSE 'EXPANDED_TEXT_AD' END AS ad_type,
           ${d.int(3, 5, TAG.adCards, [a])} AS carousel_cards,
           (${d.hash(TAG.adHeadline, a)} % 5)::INTEGER AS headline_pick,
           (${d.hash(TAG.adDescription, a)} % 4)::INTEGER AS description_pick,
           ${d.pick(CALLS_TO_ACTION, TAG.adCallToAction, a)} AS call_to_action,
           (1000000000000000 + ${permute(options.seed, a, 8_000_000_000_000_000, 13)})::VARCHAR AS video_id,
           ${d.u(TAG.adOffset, a)} AS offset_u,
           0.2 + 0.5 * ${d.u(TAG.adStep, a)} AS step_frac,
           CASE platform
             WHEN ${GOOGLE} THEN (100000000000 + ${permute(options.seed, a, 900_000_000_000, 14)})::VARCHAR
             WHEN ${MICROSOFT} THEN (10000000000 + ${permute(options.seed, a, 90_000_000_000, 15)})::VARCHAR
             ELSE (120000000000000000 + ${permute(options.seed, a, 800_000_000_000_000_000, 16)})::VARCHAR
           END AS ad_platform_id
      FROM x`);
  await tx.run(`CREATE OR REPLACE TEMP TABLE gen_ads AS
    SELECT * EXCLUDE (weight, end_u),
           weight / sum(weight) OVER (PARTITION BY ad_group_local) AS share,
           CASE WHEN status = 'ENABLED' THEN ad_group_end ELSE start_idx + floor(end_u * (ad_group_end - start_idx))::INTEGER END AS end_idx
      FROM gen_ads`);
  const headline = `CASE WHEN platform = ${FACEBOOK} THEN ${fitting(['product_title', "'Shop ' || product_title || ' Online'", "product_title || ' - Up to 40% Off'", "'New ' || product_title || ' Collection'", "product_title || ': Free Delivery'"], 'headline_pick', 40)}
      ELSE ${fitting(["stem_title || ' | ' || brand", "'Shop ' || stem_title || ' Online'", "stem_title || ' - Up to 40% Off'", "'New ' || stem_title || ' Collection'", "stem_title || ': Free Delivery'"], 'headline_pick', 30)} END`;
  const description = fitting(
    [
      "'Free shipping on orders over 50 ' || currency || '. Order today, delivered in 2-3 days.'",
      "'Discover our ' || stem || ' range. Fast delivery and free 30-day returns.'",
      "'Compare ' || stem || ' models and prices. Trusted by over 100,000 customers.'",
      "'Top rated ' || stem || ' at fair prices. Secure checkout and friendly support.'",
    ],
    'description_pick',
    90,
  );
  await tx.run(`INSERT INTO ads (id, organization_id, ad_group_id, ad_platform_id, name, status, ad_type, headline, description, final_url, image_urls, specific_fields)
    SELECT id, org_id, ad_group_id, ad_platform_id,
           CASE WHEN platform = ${FACEBOOK} THEN product_title || ' ' || lower(ad_type) || ' ' || (k + 1)
                ELSE stem_title || CASE ad_type WHEN 'RESPONSIVE_SEARCH_AD' THEN ' RSA ' ELSE ' ETA ' END || (k + 1) END,
           status, ad_type, ${headline}, ${description},
           'https://www.' || site_slug || '.example/' || trim(lower(regexp_replace(product_text, '[^A-Za-z0-9]+', '-', 'g')), '-')
             || CASE WHEN platform = ${FACEBOOK} THEN '?utm_source=facebook&utm_medium=paid_social' ELSE variant END,
           CASE WHEN platform = ${FACEBOOK}
                THEN list_transform(range(1, CASE WHEN ad_type = 'CAROUSEL' THEN carousel_cards ELSE 1 END + 1),
                                    card -> 'https://cdn.generated.example/fb/' || ad_platform_id || '/' || card || '_1080x1080.jpg')
                ELSE []::VARCHAR[] END,
           CASE WHEN platform = ${FACEBOOK}
                THEN '{"callToAction":"' || call_to_action || '","pageId":"' || page_id || '"'
                     || CASE ad_type WHEN 'VIDEO' THEN ',"videoId":"' || video_id || '"' WHEN 'CAROUSEL' THEN ',"cardCount":"' || carousel_cards || '"' ELSE '' END
                     || '}'
                ELSE NULL END
      FROM gen_ads
     ORDER BY id`);

  // Keywords (search platforms): 5-30 per ad group, distinct texts built around the stem.
  const keywordCount = await columnSum(tx, 'gen_ad_groups', 'n_keywords');
  const keywordFirst = await reserveIds(tx, 'keyword_id_seq', keywordCount);
  const kw = 'x.local';
  await tx.run(`CREATE OR REPLACE TEMP TABLE gen_keywords AS
    WITH x AS (
      SELECT row_number() OVER (ORDER BY g.local, t.k) - 1 AS local, t.k AS k, g.local AS ad_group_local, g.id AS ad_group_id, g.org_id, g.platform,
             g.start_idx, g.end_idx AS ad_group_end, g.stem, g.n_keywords
        FROM gen_ad_groups g, range(g.n_keywords) t(k)
    ), y AS (
      SELECT x.*, ${keywordFirst} + local AS id,
             ${weightedStatus(d, TAG.keywordStatus, kw, 0.88, 0.09)} AS status,
             ${d.weighted(['EXACT', 'PHRASE', 'BROAD'], [35, 40, 25], TAG.keywordMatch, kw)} AS match_type,
             ${d.lognormal(0.25, TAG.keywordCtr, kw)} AS ctr_noise,
             ${d.u(TAG.keywordEnd, kw)} AS end_u,
             CASE WHEN k = 0 THEN 0 ELSE 1 + ((k - 1) * 7 + (${d.hash(TAG.keywordTextOffset, 'x.ad_group_local')} % ${KEYWORD_VARIANTS - 1})::INTEGER) % ${KEYWORD_VARIANTS - 1} END AS variant,
             round(1e9 * pow(k + 1, -1.1))::BIGINT AS zipf
        FROM x
    )
    SELECT y.* EXCLUDE (end_u, ctr_noise, zipf),
           zipf / sum(zipf) OVER (PARTITION BY ad_group_local) AS share,
           ctr_noise * CASE match_type WHEN 'EXACT' THEN 1.3 WHEN 'PHRASE' THEN 1.0 ELSE 0.75 END AS ctr_m,
           CASE WHEN status = 'ENABLED' THEN ad_group_end ELSE start_idx + floor(end_u * (ad_group_end - start_idx))::INTEGER END AS end_idx,
           ${keywordText('stem', 'variant')} AS text,
           CASE platform
             WHEN ${GOOGLE} THEN (100000000000 + ${permute(options.seed, 'local', 900_000_000_000, 17)})::VARCHAR
             ELSE (10000000000 + ${permute(options.seed, 'local', 90_000_000_000, 18)})::VARCHAR
           END AS ad_platform_id
      FROM y`);
  await tx.run(`INSERT INTO keywords (id, organization_id, ad_group_id, ad_platform_id, text, match_type, status)
    SELECT id, org_id, ad_group_id, ad_platform_id, text, match_type, status FROM gen_keywords ORDER BY id`);

  return {
    campaigns: campaignCount,
    adGroups: adGroupCount,
    ads: adCount,
    keywords: keywordCount,
    firstIds: { ad: adFirst, keyword: keywordFirst },
  };
}

/** ENABLED / PAUSED / REMOVED with the given first two probabilities. */
function weightedStatus(d: Draws, tag: number, key: string, enabled: number, paused: number): string {
  return d.weighted(['ENABLED', 'PAUSED', 'REMOVED'], [enabled, paused, 1 - enabled - paused], tag, key);
}

/** The picked template if it fits in `max` characters, else the first that does, else the first cut. */
function fitting(templates: readonly string[], pick: string, max: number): string {
  const picked = `(${templates.map((t, i) => `WHEN ${pick} = ${i} THEN ${t}`).reduce((acc, arm) => `${acc} ${arm}`, 'CASE')} END)`;
  const fallbacks = templates.map((t) => `WHEN length(${t}) <= ${max} THEN ${t}`).join(' ');
  return `(CASE WHEN length(${picked}) <= ${max} THEN ${picked} ${fallbacks} ELSE left(${templates[0]}, ${max}) END)`;
}

/** Variant 0 is the stem, then prefix + stem, stem + suffix, prefix + stem + suffix. */
function keywordText(stem: string, variant: string): string {
  const p = KEYWORD_PREFIXES.length;
  const s = KEYWORD_SUFFIXES.length;
  return `CASE WHEN ${variant} = 0 THEN ${stem}
      WHEN ${variant} <= ${p} THEN ${sqlStringList(KEYWORD_PREFIXES)}[${variant}] || ' ' || ${stem}
      WHEN ${variant} <= ${p + s} THEN ${stem} || ' ' || ${sqlStringList(KEYWORD_SUFFIXES)}[${variant} - ${p}]
      ELSE ${sqlStringList(KEYWORD_PREFIXES)}[1 + (${variant} - ${p + s + 1}) // ${s}] || ' ' || ${stem} || ' ' || ${sqlStringList(KEYWORD_SUFFIXES)}[1 + (${variant} - ${p + s + 1}) % ${s}] END`;
}
