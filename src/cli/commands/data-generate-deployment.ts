import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configFromEnv, serviceConfigSchema } from '../../config/config.js';
import type { GenerateProgress, GenerateResult } from '../../generator/generate.js';
import type { GenerateOptions } from '../../generator/options.js';
import { CliError, type CommandContext } from '../command.js';

export interface DeploymentGenerateSettings {
  readonly memoryLimit: string;
  readonly threads: number | undefined;
  readonly announce: () => void;
  readonly progress: (totalWork: number) => GenerateProgress;
}

/**
 * `data generate` on a PostgreSQL store with `ADREPORT_FACTS=clickhouse`: the generator runs as
 * everywhere (its SQL is DuckDB's) on a scratch file in the temp directory, so the same seed makes
 * the same rows in every deployment; its facts and rollups are loaded into the cluster
 * (partition swaps per organization and month), then everything else is copied into PostgreSQL in
 * one transaction, with the sequences set after the copied ids. The scratch file is deleted. Like
 * `migrate-store`, it needs a store with no organizations: ids are the generator's.
 */
export async function generateIntoDeployment(
  context: CommandContext,
  storeUrl: string,
  options: GenerateOptions,
  settings: DeploymentGenerateSettings,
): Promise<GenerateResult> {
  const parsed = serviceConfigSchema.safeParse({ ...configFromEnv(context.io.env), storeUrl });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new CliError(`invalid setting ${issue.path.join('.')}: ${issue.message}`, 2);
  }
  const config = parsed.data;
  if (config.facts !== 'clickhouse')
    throw new CliError(
      'data generate on the PostgreSQL store writes its facts to ClickHouse: set ADREPORT_FACTS=clickhouse and ' +
        'ADREPORT_CLICKHOUSE_SHARD_URLS (a cluster) or ADREPORT_CLICKHOUSE_URL (one node)',
      2,
    );
  const [{ generateData }, { withGeneratorStore }, copy, { openPostgresAdminStore }, facts] = await Promise.all([
    import('../../generator/generate.js'),
    import('../../generator/store.js'),
    import('../../store/postgres/copy-from-duckdb.js'),
    import('../admin-store.js'),
    import('./data-generate-clickhouse.js'),
  ]);
  const target = await openPostgresAdminStore(storeUrl);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'adreport-generate-'));
  try {
    return await withGeneratorStore(
      path.join(scratch, 'generated.duckdb'),
      { memoryLimit: settings.memoryLimit, threads: settings.threads },
      async (db) => {
        const plan = await copy.planCopy(db, target, { factsElsewhere: true });
        try {
          await target.read((r) => copy.assertTargetEmpty(r, target.dbPath, plan));
        } catch (error) {
          if (error instanceof copy.TargetNotEmptyError) throw new CliError(error.message);
          throw error;
        }
        settings.announce();
        const result = await generateData(db, options, { progress: settings.progress });
        await facts.loadGeneratedFacts(db, config, result, (line) => context.io.stderr.write(`${line}\n`));
        await copy.copyFromDuckDb(db, target, plan);
        return result;
      },
    );
  } finally {
    await target.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}
