import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MODEL_RELATIONS, MODEL_TABLE_FUNCTIONS } from '../../src/sql-endpoint/model/relations.js';

/** README "SQL endpoint > The model" lists every relation and table function with its columns, as the model declares them. */
describe('README: the SQL model table', () => {
  const readme = fs.readFileSync(path.join(import.meta.dirname, '../../README.md'), 'utf8');
  const table = /<!-- sql-model:start -->\n([\s\S]*?)<!-- sql-model:end -->/.exec(readme)?.[1] ?? '';
  const rows = new Map(
    table
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .map((line) => {
        const [, name = '', , columns = ''] = line.split('|').map((cell) => cell.trim());
        return [name.replace(/^`|`$/g, '').replace(/\(.*$/, ''), columns] as const;
      }),
  );

  it('has one row per relation and table function, and no other', () => {
    expect([...rows.keys()].sort()).toEqual([...MODEL_RELATIONS, ...MODEL_TABLE_FUNCTIONS].map((r) => r.name).sort());
  });

  it.each([...MODEL_RELATIONS, ...MODEL_TABLE_FUNCTIONS].map((r) => [r.name, r] as const))(
    '%s: the columns the model declares',
    (name, relation) => {
      const listed = (rows.get(name) ?? '').match(/`[a-z_0-9]+`/g)?.map((c) => c.slice(1, -1)) ?? [];
      const expected = relation.columns.map((c) => c.name).filter((c) => !/^field\d+$/.test(c));
      const customFields = relation.columns.some((c) => /^field\d+$/.test(c.name)) ? ['field1', 'field30'] : [];
      expect(listed).toEqual([...expected, ...customFields]);
    },
  );
});
