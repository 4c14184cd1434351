import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configFromEnv, mergeConfig, serviceConfigSchema } from '../../src/config/config.js';

/*
 * README's Configuration table against the code (issue 36 item 17): every ADREPORT_* variable the
 * sources name is a row, every row's variable is one the configuration reads, and a default
 * written in backticks, set as the variable, changes nothing.
 */
const ROOT = path.resolve(import.meta.dirname, '..', '..');
const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');

interface Row {
  readonly names: string[];
  readonly flags: string[];
  readonly defaults: string[];
}

function configurationRows(): Row[] {
  const start = readme.indexOf('\n## Configuration\n');
  if (start < 0) throw new Error('README has no "## Configuration" section');
  const section = readme.slice(start + 1, readme.indexOf('\n## ', start + 1));
  const ticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [name = '', flag = '', defaults = ''] = line.split('|').slice(1);
      return { names: ticked(name), flags: ticked(flag), defaults: ticked(defaults) };
    });
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(c?ts)$/.test(entry.name) ? [full] : [];
  });
}

const rows = configurationRows();
const documented = rows.flatMap((row) => row.names);
const defaults = serviceConfigSchema.parse({});

describe('README Configuration table', () => {
  it('has a row for every ADREPORT_* variable the sources name', () => {
    const named = new Set<string>();
    for (const file of sourceFiles(path.join(ROOT, 'src'))) {
      for (const match of fs.readFileSync(file, 'utf8').matchAll(/\bADREPORT_[A-Z0-9_]*[A-Z0-9]\b/g))
        named.add(match[0]);
    }
    expect(named.size).toBeGreaterThan(40);
    expect([...named].filter((name) => !documented.includes(name)).sort()).toEqual([]);
  });

  it('names only variables the configuration reads', () => {
    const nothingSet = JSON.stringify(configFromEnv({}));
    for (const name of documented.filter((n) => n.startsWith('ADREPORT_'))) {
      expect(JSON.stringify(configFromEnv({ [name]: 'x' })), name).not.toBe(nothingSet);
    }
  });

  it('gives the defaults the code has: each backticked default, set as its variable, changes nothing', () => {
    let checked = 0;
    for (const row of rows) {
      if (row.defaults.length !== row.names.length) continue; // a default said in words ("unset", "the above - 1")
      row.names.forEach((name, i) => {
        const parsed = serviceConfigSchema.parse(mergeConfig(configFromEnv({ [name]: row.defaults[i] })));
        expect(parsed, `${name}=${row.defaults[i]}`).toEqual(defaults);
        checked += 1;
      });
    }
    expect(checked).toBeGreaterThan(35);
  });

  it("names flags that serve's usage lists", () => {
    const usage = fs.readFileSync(path.join(ROOT, 'src', 'cli', 'commands', 'serve.ts'), 'utf8');
    const global = fs.readFileSync(path.join(ROOT, 'src', 'cli', 'run.ts'), 'utf8');
    for (const flag of rows.flatMap((row) => row.flags)) {
      const option = flag.split(' ')[0]!;
      expect(usage.includes(option) || global.includes(option), option).toBe(true);
    }
  });
});
