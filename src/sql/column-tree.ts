import type { NamedColumn } from './dialect.js';

/** A member of a JSON object built from flat columns: a value, or an object of members. */
export type ColumnNode =
  | { readonly kind: 'value'; readonly name: string; readonly column: NamedColumn }
  | { readonly kind: 'object'; readonly name: string; readonly members: readonly ColumnNode[] };

/**
 * Flat columns named by JSON paths (`id`, `statistics.clicks`, `comparison.statistics.clicks`)
 * as the tree of the object they make, members in the order their first column comes: what both
 * dialects' jsonObject render, each in its own SQL.
 */
export function columnTree(columns: readonly NamedColumn[]): ColumnNode[] {
  interface Building {
    readonly name: string;
    readonly members: Array<Building | ColumnNode>;
  }
  const root: Building = { name: '', members: [] };
  for (const column of columns) {
    const path = column[0].split('.');
    let at = root;
    for (const name of path.slice(0, -1)) {
      let next = at.members.find((m): m is Building => !('kind' in m) && m.name === name);
      if (!next) {
        next = { name, members: [] };
        at.members.push(next);
      }
      at = next;
    }
    at.members.push({ kind: 'value', name: path[path.length - 1]!, column });
  }
  const finish = (members: ReadonlyArray<Building | ColumnNode>): ColumnNode[] =>
    members.map((m) => ('kind' in m ? m : { kind: 'object', name: m.name, members: finish(m.members) }));
  return finish(root.members);
}
