import fs from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ENDPOINT_BY_PATH, ENDPOINTS } from '../../catalog/endpoints.js';
import { ProgressBar, type ProgressStream } from '../../generator/progress.js';
import { getOrganization } from '../../organizations/organizations.js';
import { buildPlan } from '../../planner/build-plan.js';
import { ExportService } from '../../reporting/export-stream.js';
import { parseReportQuery, reportRequest } from '../../reporting/report-request.js';
import { ReportService } from '../../reporting/report-service.js';
import { ApiError } from '../../shared/errors.js';
import type { ExportFormat } from '../../sql/compile-report.js';
import { withAdminStore } from '../admin-store.js';
import { CliError, parseId, printResult, requireOption, type Command } from '../command.js';

const FORMATS: readonly ExportFormat[] = ['csv', 'ndjson', 'parquet'];

/**
 * `adreport export`: what GET /reporting/v0/<endpoint>?format=... streams, into a file, with a
 * progress bar. It opens the database file itself (like the other admin commands), so it runs
 * while the service is stopped; against a running service, ask the HTTP endpoint.
 */
export const exportReport: Command = {
  path: ['export'],
  summary: 'Export a report of an organization into a CSV, NDJSON or Parquet file (the whole result, as the reporting endpoints stream it)',
  usage: 'adreport export --org ID --endpoint PATH [--query QUERY] [--format csv|ndjson|parquet] [--out FILE] [--force] [--db FILE] [--json]',
  optionHelp: [
    '--org ID           the organization whose report it is',
    `--endpoint PATH    the reporting endpoint below /reporting/v0: ${ENDPOINTS.map((e) => e.path).join(', ')}`,
    "--query QUERY      the endpoint's query parameters as in a URL, e.g. 'startDate=2026-01-01&endDate=2026-03-31&segments=Day' (values percent-encoded)",
    '--format F         csv (default), ndjson or parquet; by default taken from the --out extension',
    '--out FILE         the file to write (default <endpoint>_<from>_<to>.<format> here; - for stdout); written beside and renamed when complete',
    '--force            replace FILE if it exists',
  ],
  options: { org: { type: 'string' }, endpoint: { type: 'string' }, query: { type: 'string' }, format: { type: 'string' }, out: { type: 'string' }, force: { type: 'boolean' } },
  async run(context) {
    const started = performance.now();
    const { values } = context;
    const organizationId = parseId(requireOption(values, 'org'), 'org');
    const path = requireOption(values, 'endpoint').replace(/^\/?(reporting\/v0\/)?/, '');
    const endpoint = ENDPOINT_BY_PATH.get(path);
    if (!endpoint) throw new CliError(`--endpoint "${path}" is not a reporting endpoint; one of ${ENDPOINTS.map((e) => e.path).join(', ')}`, 2);
    const out = typeof values.out === 'string' && values.out !== '' ? values.out : undefined;
    const format = exportFormat(typeof values.format === 'string' ? values.format : undefined, out);
    const queryText = typeof values.query === 'string' ? values.query.replace(/^\?/, '') : '';

    const stderr = context.io.stderr as ProgressStream & NodeJS.WritableStream;
    return withAdminStore(context.dbPath, async (db) => {
      if (!(await db.read((r) => getOrganization(r, organizationId)))) throw new CliError(`organization ${organizationId} does not exist`);
      let request;
      try {
        const query = parseReportQuery(`?${queryText}`, endpoint.level);
        if (query.get('format') !== undefined) throw new CliError('--query must not hold format; use --format', 2);
        request = reportRequest(query, endpoint.level, organizationId, format);
      } catch (error) {
        // The API's 400s name the parameter; on the command line they are usage errors.
        if (error instanceof ApiError) throw new CliError(`--query: ${error.message}`, 2);
        throw error;
      }
      const now = new Date();
      let plan;
      try {
        plan = buildPlan(endpoint, request, now);
      } catch (error) {
        rethrowAsUsage(error);
      }
      const target = out ?? `${endpoint.path.replaceAll('/', '-')}_${plan.from}_${plan.to}.${format}`;
      if (target !== '-' && fs.existsSync(target) && values.force !== true) throw new CliError(`${target} exists; use --force to replace it`);
      const reports = new ReportService(db, () => now, new ExportService(db, 1));
      const total = await reports.count(endpoint, request);
      const { stream, warnings } = await reports.export(endpoint, request, format);
      const partial = `${target}.partial`;
      const bar = new ProgressBar(stderr, total, `export ${endpoint.path} ${format}`);
      let rows = 0;
      let bytes = 0;
      // Rows are counted as lines of text (minus the CSV header); Parquet is binary, so its bar shows bytes until the end.
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          bytes += chunk.length;
          if (format !== 'parquet') {
            for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) rows++;
          }
          const shown = format === 'csv' ? Math.max(0, rows - 1) : rows;
          bar.update(shown, shown, `${(bytes / 1e6).toFixed(1)} MB`);
          callback(null, chunk);
        },
      });
      const sink = target === '-' ? context.io.stdout : fs.createWriteStream(partial);
      try {
        await pipeline(stream, counter, sink, { end: target !== '-' });
      } catch (error) {
        if (target !== '-') fs.rmSync(partial, { force: true });
        throw new CliError(`export failed: ${(error as Error).message}`);
      }
      const failure = await stream.outcome;
      if (failure) {
        if (target !== '-') fs.rmSync(partial, { force: true });
        throw new CliError(`export failed: ${failure.message}`);
      }
      if (target !== '-') fs.renameSync(partial, target);
      bar.update(total, total, `${(bytes / 1e6).toFixed(1)} MB`);
      bar.finish();
      const seconds = (performance.now() - started) / 1000;
      // The warnings a JSON response or the export's header would carry (estimated FX rates).
      printResult(context, {
        file: target,
        format,
        endpoint: endpoint.path,
        from: plan.from,
        to: plan.to,
        rows: total,
        bytes,
        seconds: Number(seconds.toFixed(3)),
        ...(warnings.length > 0 ? { warnings } : {}),
      });
      return 0;
    });
  },
};

function exportFormat(flag: string | undefined, out: string | undefined): ExportFormat {
  if (flag !== undefined) {
    if (!(FORMATS as readonly string[]).includes(flag)) throw new CliError(`--format must be one of ${FORMATS.join(', ')}, not "${flag}"`, 2);
    return flag as ExportFormat;
  }
  const extension = out?.toLowerCase().match(/\.(csv|ndjson|jsonl|parquet)$/)?.[1];
  return extension === undefined ? 'csv' : extension === 'jsonl' ? 'ndjson' : (extension as ExportFormat);
}

/** A 400 from the planner (a bad filter, an unknown statistic) is a usage error here. */
function rethrowAsUsage(error: unknown): never {
  if (error instanceof ApiError && error.status === 400) throw new CliError(`--query: ${error.message}`, 2);
  throw error;
}
