import { queryText } from './rest-gateway.js';

/** The report parameters the explorer's fragment holds (src/explorer/report-state.ts). */
const EXPLORER_PARAMETERS = new Set([
  'startDate',
  'endDate',
  'dateRange',
  'statistics',
  'segments',
  'filter',
  'sort',
  'formulas',
  'currency',
  'limit',
  'offset',
]);

/**
 * The explorer page showing the same report (GET /explorer#endpoint=...), or undefined when a
 * parameter is one the explorer has no field for (compare, totals, embed, a name search, a
 * campaign label): a link that showed other numbers would be worse than none.
 */
export function explorerLink(origin: string, endpoint: string, query: URLSearchParams): string | undefined {
  const fragment = new URLSearchParams({ endpoint });
  for (const name of new Set(query.keys())) {
    if (!EXPLORER_PARAMETERS.has(name)) return undefined;
    // The explorer's formulas box holds one formula per line.
    fragment.set(name, name === 'formulas' ? query.getAll(name).join('\n') : query.get(name)!);
  }
  return `${origin}/explorer#${queryText(fragment)}`;
}
