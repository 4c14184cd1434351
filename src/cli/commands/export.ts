import { noFactsHere } from '../no-facts-here.js';
import fs from 'node:fs';
import { Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';
import { ENDPOINT_BY_PATH, ENDPOINTS, type ReportEndpoint } from '../../catalog/endpoints.js';
import { ProgressBar, type ProgressStream } from '../progress-bar.js';
import { getOrganization } from '../../organizations/organizations.js';
import { buildPlan } from '../../planner/build-plan.js';
import type { ReportPlan } from '../../planner/report-plan.js';
import type { ReportRequest } from '../../planner/report-plan.js';
import type { ReportWarning } from '../../reporting/report-warnings.js';
import { parseReportQuery, reportRequest } from '../../reporting/report-request.js';
import { ApiError, OverloadedError } from '../../shared/errors.js';
import type { ExportFormat } from '../../sql/compile-report.js';
import { adminCommand, type Presenter } from '../admin/admin-command.js';
import { CliError, parseId, printResult, requireOption, type CommandContext, type OptionValues } from '../command.js';

const FORMATS = ['csv', 'ndjson', 'parquet'] as const satisfies readonly ExportFormat[];

interface ExportInput {
  readonly organizationId: number;
  readonly endpoint: string;
  readonly query: string;
  readonly format: ExportFormat;
  /** The CLI's clock, so the default date range (and the file name made from it) is the same wherever it runs. */
  readonly now: string;
}

/** Where the bytes go, and the period for the summary: the CLI's side only. */
interface ExportTarget {
  readonly file: string;
  readonly from: string;
  readonly to: string;
}

/**
 * `adreport export`: what GET /reporting/v0/<endpoint>?format=... streams, into a file, with a
 * progress bar. The query is checked here, before anything else; the rows come from the CLI's own
 * store, or from the server holding the file, which streams the bytes over the admin channel (the
 * CLI writes the file: it may be somewhere only the CLI's user can write).
 */
export const exportReport = adminCommand({
  path: ['export'],
  summary:
    'Export a report of an organization into a CSV, NDJSON or Parquet file (the whole result, as the reporting endpoints stream it)',
  usage:
    'adreport export --org ID --endpoint PATH [--query QUERY] [--format csv|ndjson|parquet] [--out FILE] [--force] [--db FILE] [--json]',
  optionHelp: [
    '--org ID           the organization whose report it is',
    `--endpoint PATH    the reporting endpoint below /reporting/v0: ${ENDPOINTS.map((e) => e.path).join(', ')}`,
    "--query QUERY      the endpoint's query parameters as in a URL, e.g. 'startDate=2026-01-01&endDate=2026-03-31&segments=Day' (values percent-encoded)",
    '--format F         csv (default), ndjson or parquet; by default taken from the --out extension',
    '--out FILE         the file to write (default <endpoint>_<from>_<to>.<format> here; - for stdout); written beside and renamed when complete',
    '--force            replace FILE if it exists',
  ],
  options: {
    org: { type: 'string' },
    endpoint: { type: 'string' },
    query: { type: 'string' },
    format: { type: 'string' },
    out: { type: 'string' },
    force: { type: 'boolean' },
  },
  parse({ values }): ExportInput {
    const organizationId = parseId(requireOption(values, 'org'), 'org');
    const endpoint = endpointOf(requireOption(values, 'endpoint'), 2);
    const format = exportFormat(typeof values.format === 'string' ? values.format : undefined, outOption(values));
    const query = typeof values.query === 'string' ? values.query.replace(/^\?/, '') : '';
    const input = { organizationId, endpoint: endpoint.path, query, format, now: new Date().toISOString() };
    const { file } = exportTarget(values, input);
    if (file !== '-' && fs.existsSync(file) && values.force !== true)
      throw new CliError(`${file} exists; use --force to replace it`);
    return input;
  },
  operation: {
    name: 'export',
    input: z.object({
      organizationId: z.number().int().positive(),
      endpoint: z.string(),
      query: z.string(),
      format: z.enum(FORMATS),
      now: z.iso.datetime(),
    }),
    async run({ db, services, progress, output }, input) {
      if (!db.dialect.servesReports) throw noFactsHere('export');
      if (!(await db.read((r) => getOrganization(r, input.organizationId))))
        throw new CliError(`organization ${input.organizationId} does not exist`);
      const endpoint = endpointOf(input.endpoint, 1);
      const { request } = planExport(endpoint, input.organizationId, input.query, input.format, new Date(input.now));
      const rows = await services.reports.count(endpoint, request);
      const { stream, warnings } = await services.reports
        .export(services.reports.prepare(endpoint, request), input.format)
        .catch(busy);
      // The CLI starts its file now: nothing is created for an export that could not start.
      progress({ event: 'export', rows });
      try {
        await pipeline(stream, output, { end: false });
      } catch (error) {
        throw new CliError(`export failed: ${(error as Error).message}`);
      }
      const failure = await stream.outcome;
      if (failure) throw new CliError(`export failed: ${failure.message}`);
      // The warnings a JSON response or the export's header would carry (estimated FX rates).
      return { rows, ...(warnings.length > 0 ? { warnings } : {}) };
    },
  },
  present: (context, input) => new ExportFile(context, input, exportTarget(context.values, input)),
});

interface ExportResult {
  readonly rows: number;
  readonly warnings?: readonly ReportWarning[];
}

/**
 * The CLI's end: counts what arrives for the bar, writes `<target>.partial`, renames it when the
 * export is complete, removes it when not; `-` is stdout.
 */
class ExportFile implements Presenter<ExportResult> {
  readonly output: Transform;
  private readonly started = performance.now();
  private readonly partial: string;
  private bar: ProgressBar | undefined;
  private written: Promise<void> | undefined;
  private bytes = 0;

  constructor(
    private readonly context: CommandContext,
    private readonly input: ExportInput,
    private readonly target: ExportTarget,
  ) {
    this.partial = `${target.file}.partial`;
    let lines = 0;
    const format = input.format;
    // Rows are counted as lines of text (minus the CSV header); Parquet is binary, so its bar shows bytes until the end.
    this.output = new Transform({
      transform: (chunk: Buffer, _encoding, callback) => {
        this.bytes += chunk.length;
        if (format !== 'parquet') {
          for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++;
        }
        const shown = format === 'csv' ? Math.max(0, lines - 1) : lines;
        this.bar?.update(shown, shown, this.megabytes());
        callback(null, chunk);
      },
    });
  }

  /** The organization exists and the rows are counted: the file starts now. */
  onEvent(event: { readonly event: string; readonly [field: string]: unknown }): void {
    if (event.event !== 'export' || this.written) return;
    const stderr = this.context.io.stderr as ProgressStream & NodeJS.WritableStream;
    this.bar = new ProgressBar(stderr, Number(event.rows), `export ${this.input.endpoint} ${this.input.format}`);
    const toStdout = this.target.file === '-';
    const sink: Writable = toStdout ? (this.context.io.stdout as Writable) : fs.createWriteStream(this.partial);
    this.written = pipeline(this.output, sink, { end: !toStdout });
    // Awaited in done(); a failure before that is reported by the writes it makes fail.
    this.written.catch(() => undefined);
  }

  async done({ rows, warnings }: ExportResult): Promise<number> {
    this.output.end();
    try {
      await this.written;
    } catch (error) {
      throw new CliError(`export failed: ${(error as Error).message}`);
    }
    if (this.target.file !== '-') fs.renameSync(this.partial, this.target.file);
    this.bar?.update(rows, rows, this.megabytes());
    this.bar?.finish();
    const seconds = (performance.now() - this.started) / 1000;
    const { file, from, to } = this.target;
    const { format, endpoint } = this.input;
    printResult(this.context, {
      file,
      format,
      endpoint,
      from,
      to,
      rows,
      bytes: this.bytes,
      seconds: Number(seconds.toFixed(3)),
      ...(warnings ? { warnings } : {}),
    });
    return 0;
  }

  failed(): void {
    this.output.destroy();
    if (this.written && this.target.file !== '-') fs.rmSync(this.partial, { force: true });
  }

  private megabytes(): string {
    return `${(this.bytes / 1e6).toFixed(1)} MB`;
  }
}

/**
 * Through the server, exports share its export slots with the HTTP API. Runs where the operation
 * runs, which has loaded the store and the export service already.
 */
async function busy(error: unknown): Promise<never> {
  const [{ OrganizationExportsBusyError }, { DatabaseClosedError }] = await Promise.all([
    import('../../reporting/export-stream.js'),
    import('../../store/database.js'),
  ]);
  if (error instanceof OrganizationExportsBusyError) {
    throw new CliError(
      `the organization runs as many exports as it may at once (ADREPORT_EXPORTS_MAX_PER_ORGANIZATION); try again in ${error.headers['Retry-After'] ?? 'a few'} s`,
    );
  }
  if (error instanceof OverloadedError && !(error instanceof DatabaseClosedError)) {
    throw new CliError(
      `the server runs as many exports as it allows at once (ADREPORT_EXPORTS_MAX_CONCURRENT); try again in ${error.headers['Retry-After'] ?? 'a few'} s`,
    );
  }
  throw error;
}

function outOption(values: OptionValues): string | undefined {
  return typeof values.out === 'string' && values.out !== '' ? values.out : undefined;
}

/** `--out`, or `<endpoint>_<from>_<to>.<format>`; the plan is pure, so this is the same plan the operation makes. */
function exportTarget(values: OptionValues, input: ExportInput): ExportTarget {
  const endpoint = endpointOf(input.endpoint, 2);
  const { plan } = planExport(endpoint, input.organizationId, input.query, input.format, new Date(input.now));
  return {
    file: outOption(values) ?? `${endpoint.path.replaceAll('/', '-')}_${plan.from}_${plan.to}.${input.format}`,
    from: plan.from,
    to: plan.to,
  };
}

function endpointOf(text: string, exitCode: number): ReportEndpoint {
  const path = text.replace(/^\/?(reporting\/v0\/)?/, '');
  const endpoint = ENDPOINT_BY_PATH.get(path);
  if (!endpoint)
    throw new CliError(
      `--endpoint "${path}" is not a reporting endpoint; one of ${ENDPOINTS.map((e) => e.path).join(', ')}`,
      exitCode,
    );
  return endpoint;
}

/** The request and its plan; the API's 400s name the parameter, and on the command line they are usage errors. */
function planExport(
  endpoint: ReportEndpoint,
  organizationId: number,
  query: string,
  format: ExportFormat,
  now: Date,
): { request: ReportRequest; plan: ReportPlan } {
  try {
    const parsed = parseReportQuery(`?${query}`, endpoint);
    if (parsed.get('format') !== undefined) throw new CliError('--query must not hold format; use --format', 2);
    const request = reportRequest(parsed, endpoint.level, organizationId, format);
    return { request, plan: buildPlan(endpoint, request, now) };
  } catch (error) {
    if (error instanceof ApiError && error.status === 400) throw new CliError(`--query: ${error.message}`, 2);
    throw error;
  }
}

function exportFormat(flag: string | undefined, out: string | undefined): ExportFormat {
  if (flag !== undefined) {
    if (!(FORMATS as readonly string[]).includes(flag))
      throw new CliError(`--format must be one of ${FORMATS.join(', ')}, not "${flag}"`, 2);
    return flag as ExportFormat;
  }
  const extension = out?.toLowerCase().match(/\.(csv|ndjson|jsonl|parquet)$/)?.[1];
  return extension === undefined ? 'csv' : extension === 'jsonl' ? 'ndjson' : (extension as ExportFormat);
}
