import { configFromEnv, serviceConfigSchema } from '../../config/config.js';
import type { StatisticsSyncSettings } from '../../jobs/statistics-sync-queue.js';
import { CliError } from '../command.js';

/** A bad ADREPORT_STATISTICS_* value is a usage error. */
export function statisticsSettings(env: NodeJS.ProcessEnv): StatisticsSyncSettings {
  const parsed = serviceConfigSchema.shape.statistics.safeParse(configFromEnv(env).statistics);
  if (!parsed.success)
    throw new CliError(
      `invalid setting statistics.${parsed.error.issues[0]!.path.join('.')}: ${parsed.error.issues[0]!.message}`,
      2,
    );
  return parsed.data;
}
