import { generateData } from '../../src/generator/generate.js';
import { parseGenerateOptions } from '../../src/generator/options.js';
import { GENERATOR_MEMORY_LIMIT, withGeneratorStore } from '../../src/generator/store.js';

/** An organization the generator made, with its client. */
export interface GeneratedOrganization {
  readonly id: number;
  readonly clientId: string;
  readonly clientSecret: string;
}

/**
 * What `adreport data generate` does, in this process: the generator on its own store, opened,
 * filled and closed (checkpointed) before anything else opens the file. The bin's own flags,
 * output and refusals are tested through the bin (test/cli/generator.test.ts); the tiers that
 * only need a generated database need no build for it.
 */
export async function generateDatabase(
  file: string,
  spec: { scale: string; days: number; seed: number; orgs: number },
): Promise<GeneratedOrganization[]> {
  const options = parseGenerateOptions({
    scale: spec.scale,
    days: String(spec.days),
    seed: String(spec.seed),
    orgs: String(spec.orgs),
  });
  const result = await withGeneratorStore(file, { memoryLimit: GENERATOR_MEMORY_LIMIT }, (db) =>
    generateData(db, options),
  );
  return result.organizations.map(({ id, clientId, clientSecret }) => ({ id, clientId, clientSecret }));
}
