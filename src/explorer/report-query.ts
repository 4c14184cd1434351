import type { operations } from '../client/index.js';
import type { DisplayType } from './number-format.js';
import type { ReportState } from './report-state.js';

/** The query of a statistics endpoint (every one takes the campaigns endpoint's parameters or fewer). */
export type ReportQuery = NonNullable<operations['getCampaignStatistics']['parameters']['query']>;
export type ExportFormat = 'csv' | 'ndjson' | 'parquet';

/**
 * The formulas box holds one formula per line; the service takes them joined by commas. Errors
 * point into the joined text (`details[].position`), so each piece remembers where it stands in
 * the box to carry a position back.
 */
export interface FormulaText {
  /** The `formulas` parameter as sent: the non-blank lines, trimmed, joined by commas. */
  readonly value: string;
  /** For each piece: its offset in the parameter and in the box, and its length. */
  readonly pieces: ReadonlyArray<{ readonly sent: number; readonly typed: number; readonly length: number }>;
}

export function formulaText(typed: string): FormulaText {
  const pieces: Array<{ sent: number; typed: number; length: number }> = [];
  const parts: string[] = [];
  let sent = 0;
  let lineStart = 0;
  for (const line of typed.split('\n')) {
    const trimmed = line.trim();
    if (trimmed !== '') {
      pieces.push({ sent, typed: lineStart + line.indexOf(trimmed), length: trimmed.length });
      parts.push(trimmed);
      sent += trimmed.length + 1;
    }
    lineStart += line.length + 1;
  }
  return { value: parts.join(','), pieces };
}

/** Where an offset into the sent `formulas` parameter lies in the box. */
export function typedPosition(formulas: FormulaText, position: number): number {
  for (const piece of formulas.pieces) {
    if (position <= piece.sent + piece.length) return piece.typed + Math.max(0, position - piece.sent);
  }
  const last = formulas.pieces.at(-1);
  return last === undefined ? 0 : last.typed + last.length;
}

/** Each formula's display type, from its `name:expression:Type` (a piece that is not one formula: none). */
export function formulaTypes(formulas: FormulaText): Map<string, DisplayType> {
  const types = new Map<string, DisplayType>();
  for (const piece of formulas.pieces) {
    const text = formulas.value.slice(piece.sent, piece.sent + piece.length);
    const match = /^([A-Za-z][A-Za-z0-9_]*)\s*:.*:\s*(Integer|Decimal|Money|Percentage)$/.exec(text);
    if (match) types.set(match[1]!, match[2] as DisplayType);
  }
  return types;
}

/** The query of the report's JSON page: the state, with totals (per bucket when segmented). */
export function pageQuery(state: ReportState): ReportQuery {
  return {
    ...reportQuery(state),
    limit: state.limit,
    offset: state.offset,
    totals: state.segments.length > 0 ? 'segments' : 'true',
  };
}

/** The query of an export: the whole result (no paging, no totals: exports are rows only). */
export function exportQuery(state: ReportState): ReportQuery {
  return reportQuery(state);
}

function reportQuery(state: ReportState): ReportQuery {
  const query: ReportQuery = {};
  if (state.dateRange !== undefined) query.dateRange = state.dateRange as ReportQuery['dateRange'];
  else {
    if (state.startDate !== '') query.startDate = state.startDate;
    if (state.endDate !== '') query.endDate = state.endDate;
  }
  if (state.segments.length > 0) query.segments = [...state.segments] as ReportQuery['segments'];
  if (state.statistics.length > 0) query.statistics = [...state.statistics] as ReportQuery['statistics'];
  if (state.filter !== '') query.filter = state.filter;
  if (state.sort !== '') query.sort = state.sort;
  const formulas = formulaText(state.formulas);
  if (formulas.value !== '') query.formulas = [formulas.value];
  if (state.currency !== '') query.currency = state.currency as ReportQuery['currency'];
  if (state.compare) query.compare = state.compare;
  return query;
}
