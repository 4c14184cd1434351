import { describe, expect, it } from 'vitest';
import type { CampaignTree, PlatformAd, PlatformKeyword } from '../../src/platforms/connector.js';
import { mapCampaignForPlatform } from '../../src/provisioning/campaigns/campaign-mapping.js';

const keyword = (text: string, extra: Partial<PlatformKeyword> = {}): PlatformKeyword => ({
  adPlatformId: `k-${text.length}`,
  text,
  matchType: 'PHRASE',
  status: 'ENABLED',
  ...extra,
});
const ad = (adType: string, extra: Partial<PlatformAd> = {}): PlatformAd => ({
  adPlatformId: `a-${adType}`,
  name: `Ad ${adType}`,
  status: 'ENABLED',
  adType,
  headline: 'Garden chairs on sale',
  description: 'Weatherproof teak, delivered in 3 days.',
  finalUrl: 'https://example.com/chairs',
  ...extra,
});

function tree(
  overrides: { name?: string; dailyBudget?: number; keywords?: PlatformKeyword[]; ads?: PlatformAd[] } = {},
): CampaignTree {
  return {
    campaign: {
      adPlatformId: '111',
      name: overrides.name ?? 'Garden | Exact',
      status: 'ENABLED',
      createdOn: '2026-01-01',
      dailyBudget: overrides.dailyBudget ?? 50,
    },
    adGroups: [
      {
        adPlatformId: 'g1',
        name: 'Chairs',
        status: 'ENABLED',
        keywords: overrides.keywords ?? [keyword('teak chair'), keyword('garden chair', { matchType: 'EXACT' })],
        ads: overrides.ads ?? [ad('RESPONSIVE_SEARCH_AD')],
      },
      {
        adPlatformId: 'g2',
        name: 'Old',
        status: 'REMOVED',
        keywords: [keyword('old')],
        ads: [ad('RESPONSIVE_SEARCH_AD')],
      },
    ],
  };
}

describe('campaign mapping between the search platforms', () => {
  it('copies names, statuses, match types, texts and urls, never ids, and leaves REMOVED entities out', () => {
    const { draft, changes } = mapCampaignForPlatform(tree(), 'MICROSOFT_ADVERTISING');
    expect(changes).toEqual([]);
    expect(draft).toEqual({
      name: 'Garden | Exact',
      status: 'ENABLED',
      dailyBudget: 50,
      adGroups: [
        {
          name: 'Chairs',
          status: 'ENABLED',
          keywords: [
            { text: 'teak chair', matchType: 'PHRASE', status: 'ENABLED' },
            { text: 'garden chair', matchType: 'EXACT', status: 'ENABLED' },
          ],
          ads: [
            {
              name: 'Ad RESPONSIVE_SEARCH_AD',
              status: 'ENABLED',
              adType: 'RESPONSIVE_SEARCH_AD',
              headline: 'Garden chairs on sale',
              description: 'Weatherproof teak, delivered in 3 days.',
              finalUrl: 'https://example.com/chairs',
            },
          ],
        },
      ],
    });
    expect(JSON.stringify(draft)).not.toMatch(/adPlatformId|"g1"|"111"/);
  });

  it('cuts a campaign name to 128 characters for MICROSOFT_ADVERTISING but keeps 255 for GOOGLE_ADS', () => {
    const long = 'n'.repeat(200);
    const toMicrosoft = mapCampaignForPlatform(tree({ name: long }), 'MICROSOFT_ADVERTISING');
    expect(toMicrosoft.draft.name).toHaveLength(128);
    expect(toMicrosoft.changes).toEqual(['campaign name cut to 128 characters']);
    expect(mapCampaignForPlatform(tree({ name: long }), 'GOOGLE_ADS').draft.name).toBe(long);
  });

  it('leaves out keywords over 80 characters for GOOGLE_ADS, which MICROSOFT_ADVERTISING (100) keeps', () => {
    const ninety = `${'k'.repeat(89)}x`;
    const source = tree({ keywords: [keyword('short'), keyword(ninety)] });
    const toGoogle = mapCampaignForPlatform(source, 'GOOGLE_ADS');
    expect(toGoogle.draft.adGroups[0]!.keywords.map((k) => k.text)).toEqual(['short']);
    expect(toGoogle.changes).toEqual([`keyword "${ninety}" left out: longer than 80 characters`]);
    expect(mapCampaignForPlatform(source, 'MICROSOFT_ADVERTISING').draft.adGroups[0]!.keywords).toHaveLength(2);
  });

  it('turns EXPANDED_TEXT_AD into RESPONSIVE_SEARCH_AD for GOOGLE_ADS only', () => {
    const source = tree({ ads: [ad('EXPANDED_TEXT_AD')] });
    const toGoogle = mapCampaignForPlatform(source, 'GOOGLE_ADS');
    expect(toGoogle.draft.adGroups[0]!.ads[0]!.adType).toBe('RESPONSIVE_SEARCH_AD');
    expect(toGoogle.changes).toEqual(['ad "Ad EXPANDED_TEXT_AD": EXPANDED_TEXT_AD became RESPONSIVE_SEARCH_AD']);
    expect(mapCampaignForPlatform(source, 'MICROSOFT_ADVERTISING').draft.adGroups[0]!.ads[0]!.adType).toBe(
      'EXPANDED_TEXT_AD',
    );
  });

  it('rounds budgets to cents and raises them to the minimum of 1', () => {
    expect(mapCampaignForPlatform(tree({ dailyBudget: 12.345 }), 'GOOGLE_ADS').draft.dailyBudget).toBe(12.35);
    const tiny = mapCampaignForPlatform(tree({ dailyBudget: 0.4 }), 'MICROSOFT_ADVERTISING');
    expect(tiny.draft.dailyBudget).toBe(1);
    expect(tiny.changes).toEqual(['daily budget 0.4 became 1']);
  });
});
