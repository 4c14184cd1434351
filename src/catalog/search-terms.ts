/**
 * Search terms (issue 40 item 5): what people typed that matched a keyword, as the search
 * platforms' search term reports (Google Ads `search_term_view`, Microsoft Advertising's search
 * query report) give them, one row per (keyword, term). They are no table of their own: each
 * keyword of GOOGLE_ADS and MICROSOFT_ADVERTISING has 1 to SEARCH_TERM_SLOTS terms made from its
 * text by the templates below (the sandbox's model), listed by the level's entity SELECT
 * (src/sql/level-sources.ts) from the keywords table; their figures are the keyword's daily rows
 * split exactly into them (fact_search_term_daily, src/statistics/search-terms.ts).
 *
 * - A term's id is `keyword_id * SEARCH_TERM_SLOTS + slot` (slot 0 .. SEARCH_TERM_SLOTS - 1):
 *   stable across syncs and unique in the organization, and `id / SEARCH_TERM_SLOTS` (integer
 *   division) is its keyword.
 * - A keyword has the terms of slots 0 .. keyword_id % SEARCH_TERM_SLOTS (1 to 4 terms; slot 0,
 *   the keyword's own text, always), a pure function of the id, so the entity list and the
 *   facts always agree, whatever the keyword's other fields become.
 */
export const SEARCH_TERM_SLOTS = 4;

/** The text of the term in each slot: the keyword's text with this before and after it. */
export const SEARCH_TERM_TEMPLATES: readonly { readonly prefix: string; readonly suffix: string }[] = [
  { prefix: '', suffix: '' },
  { prefix: '', suffix: ' in stock' },
  { prefix: 'top rated ', suffix: '' },
  { prefix: '', suffix: ' free shipping' },
];

/** The number of search terms of a keyword (its slots 0 .. n - 1). */
export function searchTermCount(keywordId: number): number {
  return 1 + (keywordId % SEARCH_TERM_SLOTS);
}
