import type { CallRecord } from '../connector.js';
import { utcOfLocalTime, weekday } from './dates.js';
import { CALL_DEVICES, type IdScheme } from './ids.js';
import { Rng } from './random.js';
import { AREA_CODES } from './vocabulary.js';

/**
 * The single calls behind the statistics' `calls` (search platforms): an ad group's cell of a
 * day with n calls, c of them converting (as reported now) and C in the end, yields n records.
 * A seeded order of the n calls decides which convert: the first c of that order, so as
 * conversions are restated upwards records only flip from false to true, and the first C (the
 * calls that will ever convert) are answered calls of a minute or more.
 */
export interface CallCell {
  readonly scheme: IdScheme;
  readonly payload: number;
  readonly campaignSlot: number;
  readonly adGroupIndex: number;
  readonly seed: string;
  readonly date: string;
  readonly day: number;
  readonly campaignId: string;
  readonly adGroupId: string;
  readonly device: string;
  readonly timeZone: string;
  readonly country: string;
  readonly calls: number;
  /** Call conversions once final, and as reported now (<= final). */
  readonly finalConversions: number;
  readonly reportedConversions: number;
}

/** Calls by local hour, Monday to Friday and at the weekend: office hours, a lunch dip, quiet nights. */
const WEEKDAY_HOURS = [
  0.15, 0.08, 0.05, 0.05, 0.08, 0.2, 0.6, 1.6, 3.6, 5.2, 5.6, 5.4, 4.6, 4.8, 5.0, 4.8, 4.3, 3.6, 2.6, 2.0, 1.6, 1.2,
  0.7, 0.35,
];
const WEEKEND_HOURS = [
  0.3, 0.15, 0.1, 0.08, 0.08, 0.15, 0.3, 0.7, 1.5, 2.6, 3.2, 3.4, 3.3, 3.1, 3.0, 2.8, 2.6, 2.4, 2.2, 2.0, 1.7, 1.3, 0.9,
  0.5,
];
const HOURS = Array.from({ length: 24 }, (_, hour) => hour);
/** Calls nobody answered, among those that never convert (a third to a half of all calls convert): about 15 % of all calls. */
const MISSED = 0.24;
const CALL_TYPES: ReadonlyArray<{ type: CallRecord['callType']; weight: number }> = [
  { type: 'CALL_ASSET', weight: 78 },
  { type: 'CALL_ONLY_AD', weight: 16 },
  { type: 'WEBSITE_CALL', weight: 6 },
];

export function pushCallRecords(out: CallRecord[], cell: CallCell): void {
  const device = CALL_DEVICES.indexOf(cell.device as (typeof CALL_DEVICES)[number]);
  if (device < 0) throw new RangeError(`calls on device ${cell.device} are outside the call id layout`);
  const rng = Rng.of(cell.seed, cell.adGroupId, cell.day, cell.device, 'calls');
  // Fisher-Yates: rank[i] is call i's place in the order in which calls convert.
  const order = Array.from({ length: cell.calls }, (_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [order[i], order[j]] = [order[j] ?? j, order[i] ?? i];
  }
  const rank = new Array<number>(cell.calls);
  order.forEach((call, place) => (rank[call] = place));
  const hours = weekday(cell.day) === 0 || weekday(cell.day) === 6 ? WEEKEND_HOURS : WEEKDAY_HOURS;
  const areaCodes = AREA_CODES[cell.country];
  for (let index = 0; index < cell.calls; index++) {
    const place = rank[index] ?? index;
    const converts = place < cell.finalConversions;
    const hour = rng.weighted(HOURS, (h) => hours[h] ?? 1);
    const second = hour * 3600 + rng.int(0, 3599);
    const missed = !converts && rng.chance(MISSED);
    const duration = missed
      ? 0
      : converts
        ? Math.max(60, Math.round(rng.logNormal(230, 0.7)))
        : Math.max(4, Math.round(rng.logNormal(75, 1.05)));
    const callType = rng.weighted(CALL_TYPES, (t) => t.weight).type;
    // Zipf-like: the big cities' codes come up most.
    const areaCode = areaCodes
      ? (areaCodes[Math.floor(areaCodes.length * rng.next() ** 2)] ?? areaCodes[0] ?? '')
      : String(rng.int(20, 899));
    out.push({
      callId: cell.scheme.callId({
        payload: cell.payload,
        campaign: cell.campaignSlot,
        adGroup: cell.adGroupIndex,
        day: cell.day,
        device,
        index,
      }),
      date: cell.date,
      campaignId: cell.campaignId,
      adGroupId: cell.adGroupId,
      startTime: `${utcOfLocalTime(cell.day, second, cell.timeZone).toISOString().slice(0, 19)}Z`,
      durationSeconds: duration,
      status: missed ? 'MISSED' : 'RECEIVED',
      callType,
      callerCountry: cell.country,
      callerAreaCode: areaCode,
      isConversion: place < cell.reportedConversions,
    });
  }
}
