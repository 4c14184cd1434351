import { configFromEnv } from '../../config/config.js';
import {
  GenerateOptionError,
  MAX_DAYS,
  MAX_SCALE,
  parseGenerateOptions,
  type GenerateOptions,
} from '../../generator/options.js';
import { CliError, printResult, type Command } from '../command.js';
import { formatCount, ProgressBar } from '../progress-bar.js';

export const dataGenerate: Command = {
  path: ['data', 'generate'],
  summary:
    'Generate organizations, accounts, campaign trees and daily facts into the database (scale 1 = ~1 M fact rows at 400 days)',
  usage: 'adreport data generate --scale N [--days D] [--seed S] [--orgs K] [--db FILE] [--json]',
  optionHelp: [
    `--scale N          size: ~N million fact rows at the default 400 days (0.001-${MAX_SCALE}, up to 3 decimals)`,
    `--days D           days ending yesterday (UTC), 1-${MAX_DAYS} (default 400); rows grow with days`,
    '--seed S           positive integer (default 1); the same arguments give the same data on an empty database',
    '--orgs K           organizations (default max(1, round(sqrt(N)))), at most the number of accounts (round(1.5 N), at least 1)',
  ],
  options: { scale: { type: 'string' }, days: { type: 'string' }, seed: { type: 'string' }, orgs: { type: 'string' } },
  async run(context) {
    const started = performance.now();
    let options: GenerateOptions;
    try {
      const { values } = context;
      options = parseGenerateOptions({
        scale: text(values.scale),
        days: text(values.days),
        seed: text(values.seed),
        orgs: text(values.orgs),
      });
    } catch (error) {
      if (error instanceof GenerateOptionError) throw new CliError(error.message, 2);
      throw error;
    }
    // The generator and DuckDB load only now: every other command (and --help) starts without them.
    const [{ generateData }, { GENERATOR_MEMORY_LIMIT, withGeneratorStore }] = await Promise.all([
      import('../../generator/generate.js'),
      import('../../generator/store.js'),
    ]);
    // The same ADREPORT_DB_MEMORY_LIMIT / ADREPORT_DB_THREADS as the server, with the generator's own default limit.
    const env = configFromEnv(context.io.env).database ?? {};
    const memoryLimit = typeof env.memoryLimit === 'string' ? env.memoryLimit : GENERATOR_MEMORY_LIMIT;
    const threads = env.threads === undefined ? undefined : Number(env.threads);
    if (threads !== undefined && !(Number.isInteger(threads) && threads > 0))
      throw new CliError('ADREPORT_DB_THREADS must be a positive integer', 2);

    const stderr = context.io.stderr as NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
    const announce = () =>
      stderr.write(
        `data generate: scale ${options.scale}, ${options.days} days to ${options.lastDay}, seed ${options.seed}, ` +
          `${options.orgs} organization(s), ${options.accounts} account(s), ~${formatCount(options.targetRows)} fact rows\n`,
      );
    const progress = (totalWork: number) => new ProgressBar(stderr, totalWork, 'facts');
    const result =
      context.storeUrl === undefined
        ? await withGeneratorStore(context.dbPath, { memoryLimit, threads }, (db) => {
            // Only once the file is open (and not held by a server), so a refusal stays one line.
            announce();
            return generateData(db, options, { progress });
          })
        : // A PostgreSQL deployment: facts into its ClickHouse, the rest into PostgreSQL (issue 38).
          await (
            await import('./data-generate-deployment.js')
          ).generateIntoDeployment(context, context.storeUrl, options, {
            memoryLimit,
            threads,
            announce,
            progress,
          });
    const seconds = (performance.now() - started) / 1000;
    const peakRssMb = Math.round(process.resourceUsage().maxRSS / 1024);
    const rowsPerSecond = Math.round(result.factRows / seconds);
    const c = result.counts;
    stderr.write(
      `data generate: ${result.organizations.length} organization(s), ${c.accounts} accounts, ${c.platformAccounts} ad platform accounts, ` +
        `${c.campaigns} campaigns, ${c.adGroups} ad groups, ${c.ads} ads, ${c.keywords} keywords, ${c.markups} markups; ` +
        `${result.factRows} fact rows (${c.adRows} ad, ${c.keywordRows} keyword), ${c.impressionShareRows} impression share rows, ` +
        `${c.audienceRuns} audience runs, ${c.callDetails} call details, ${result.firstDay}..${result.lastDay}; ` +
        `${seconds.toFixed(1)} s, ${rowsPerSecond} rows/s, peak RSS ${peakRssMb} MB\n`,
    );
    printResult(context, {
      organizations: result.organizations.map((o) => ({
        id: o.id,
        name: o.name,
        clientId: o.clientId,
        clientSecret: o.clientSecret,
        accounts: o.accounts,
      })),
      factRows: result.factRows,
      seconds: Number(seconds.toFixed(3)),
      rowsPerSecond,
      peakRssMb,
    });
    return 0;
  },
};

function text(value: string | boolean | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
