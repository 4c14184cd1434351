/**
 * Meta's attribution windows (issue 40): which conversions a FACEBOOK figure counts, by how long
 * after a click or a view they happened. The daily facts count Meta's default setting (7-day
 * click, 1-day view); `attributionWindows=` asks for another. Each window is a union of disjoint
 * parts of the conversions (fact_campaign_attribution_daily keeps one row per part and campaign
 * day; the `base` part carries everything but conversions), so any setting is a sum of parts.
 */
export const ATTRIBUTION_PARTS = ['base', 'click_1d', 'click_7d', 'click_28d', 'view_1d', 'engaged_view_1d'] as const;
export type AttributionPart = (typeof ATTRIBUTION_PARTS)[number];

/** The windows Meta still returns, and the parts each counts (clicks nest: 1 day within 7 within 28). */
export const ATTRIBUTION_WINDOWS: Readonly<Record<string, readonly AttributionPart[]>> = {
  '1d_click': ['click_1d'],
  '7d_click': ['click_1d', 'click_7d'],
  '28d_click': ['click_1d', 'click_7d', 'click_28d'],
  '1d_view': ['view_1d'],
  '1d_ev': ['engaged_view_1d'],
};

/** Windows Meta stopped returning, and since when. */
export const REMOVED_ATTRIBUTION_WINDOWS: Readonly<Record<string, string>> = {
  '7d_view': '2026-01-12',
  '28d_view': '2026-01-12',
};

/** What the daily facts count: Meta's default attribution setting. */
export const DEFAULT_ATTRIBUTION_WINDOWS = ['7d_click', '1d_view'] as const;

/** The parts a setting sums: the base (impressions, clicks, cost, ...) and the windows' conversions, each once. */
export function attributionParts(windows: readonly string[]): AttributionPart[] {
  const parts = new Set<AttributionPart>(['base']);
  for (const window of windows) for (const part of ATTRIBUTION_WINDOWS[window] ?? []) parts.add(part);
  return ATTRIBUTION_PARTS.filter((part) => parts.has(part));
}
