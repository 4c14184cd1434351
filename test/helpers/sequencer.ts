import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { LONG_FILES } from './long-files.js';

const TEST_DIR = path.resolve(import.meta.dirname, '..');

/** The file's path under test/, as LONG_FILES names it. */
const testPathOf = (moduleId: string) => path.relative(TEST_DIR, moduleId).split(path.sep).join('/');

/**
 * Vitest's order (project by project; without a cache, larger files first), the files of
 * helpers/long-files.ts moved to the front, longest first (vitest.config.ts).
 */
export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = (spec: TestSpecification) => LONG_FILES[testPathOf(spec.moduleId)] ?? 0;
    // Array.prototype.sort is stable: the files not listed keep Vitest's order.
    return (await super.sort(files)).sort((a, b) => seconds(b) - seconds(a));
  }
}
