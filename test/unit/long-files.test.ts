import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { LONG_FILES } from '../helpers/long-files.js';

it('every file the sequencer starts first exists (renamed, it would start last again)', () => {
  const testDir = path.resolve(import.meta.dirname, '..');
  const listed = Object.keys(LONG_FILES);
  expect(listed.length).toBeGreaterThan(0);
  expect(listed.filter((file) => !/^(unit|service|cli|engines|browser)\/[\w.-]+\.test\.ts$/.test(file))).toEqual([]);
  expect(listed.filter((file) => !fs.existsSync(path.join(testDir, file)))).toEqual([]);
});
