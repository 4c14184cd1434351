import type { ServiceConfig } from '../config/config.js';

/**
 * The engines a report can run on (issue 22), named once (issue 38 item 4). Derived from this
 * list: `ReportEngineName` (report-engine.ts: what an engine says it is), the documented values of
 * the X-Report-Engine header (../http/conditional.ts) and the help of `serve --report-engine`
 * (../cli/commands/serve.ts); the `reportEngine` enum of ../config/config.ts is held to it below.
 * What makes an engine (dialect, store, replica) and how to add one: ../sql/README.md.
 */
export const REPORT_ENGINES = [
  { name: 'duckdb', summary: 'the database file itself (the default)' },
  {
    name: 'clickhouse',
    summary: 'a ClickHouse replica of what reports read: ADREPORT_CLICKHOUSE_URL or <db dir>/clickhouse',
  },
] as const satisfies readonly { readonly name: string; readonly summary: string }[];

export type ReportEngineName = (typeof REPORT_ENGINES)[number]['name'];

/** The names as a non-empty tuple, for z.enum and an OpenAPI enum. */
export const REPORT_ENGINE_NAMES = REPORT_ENGINES.map((engine) => engine.name) as [
  ReportEngineName,
  ...ReportEngineName[],
];

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;
/**
 * config.ts may import nothing but ../shared (DESIGN D4, the config-imports-only-shared rule), so
 * its `reportEngine` enum spells the names itself; this type does not compile when the two differ.
 */
export type ConfigNamesEveryEngine = Holds<Same<ServiceConfig['reportEngine'], ReportEngineName>>;
