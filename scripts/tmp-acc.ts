import { Session } from 'chdb';
import { ENDPOINT_BY_PATH } from '../src/catalog/endpoints.js';
import { buildPlan } from '../src/planner/build-plan.js';
import { parseReportQuery, reportRequest } from '../src/reporting/report-request.js';
import { compileReport, bindClickhouseParams, clickhouseDialect, CLICKHOUSE_QUERY_SETTINGS } from '../src/sql/compile-report.js';
const s = new Session('/tmp/chsmoke/db');
await s.queryAsync("INSERT INTO markups SELECT 99, 1, id, 0.1, '2020-01-01', NULL, now64(6) FROM accounts WHERE organization_id = 1 LIMIT 1");
const found = ENDPOINT_BY_PATH.get('accounts')!;
const request = reportRequest(parseReportQuery('?statistics=clicks,cost,costWithMarkup&totals=true', found.level), found.level, 1, 'json');
const plan = buildPlan(found, request, new Date());
const compiled = compileReport(plan, clickhouseDialect).jsonPage();
const bound = bindClickhouseParams(compiled.sql, compiled.params);
const settings = Object.entries(CLICKHOUSE_QUERY_SETTINGS).map(([k, v]) => `${k} = ${typeof v === 'string' ? `'${v}'` : v}`).join(', ');
try { const r = await s.queryBindAsync(`${bound.sql} SETTINGS ${settings}`, bound.query_params, { format: 'JSONCompactEachRow' }); console.log(r.text().slice(0, 300)); } catch (e) { console.log(String(e).slice(0, 600)); }
s.close();
