import type { ParseNode as Node } from './parse-tree.js';

/**
 * The name PostgreSQL gives an output column the statement did not name (FigureColname in
 * parser/parse_target.c): a column's own name, a function's name, `?column?` for the rest. BI
 * tools show these names and key their field lists on them.
 */

export function outputName(node: Node): string {
  return figure(node) ?? '?column?';
}

function figure(node: Node): string | undefined {
  const [kind, e] = Object.entries(node)[0] as [string, Node];
  switch (kind) {
    case 'ColumnRef': {
      const last = (e.fields as Node[]).at(-1)!;
      return 'String' in last ? (last.String.sval as string) : undefined;
    }
    case 'FuncCall': {
      const names = e.funcname as Node[];
      const name = names.at(-1)!.String.sval as string;
      // SQL-syntax calls keep the keyword's name: EXTRACT(...) is "extract", TRIM(...) is "btrim".
      return name;
    }
    case 'TypeCast':
      return figure(e.arg as Node) ?? typeOutputName(e.typeName as Node);
    case 'CaseExpr':
      return 'case';
    case 'CoalesceExpr':
      return 'coalesce';
    case 'MinMaxExpr':
      return e.op === 'IS_GREATEST' ? 'greatest' : 'least';
    case 'A_Expr':
      return e.kind === 'AEXPR_NULLIF' ? 'nullif' : undefined;
    case 'SQLValueFunction':
      return (
        {
          SVFOP_CURRENT_DATE: 'current_date',
          SVFOP_CURRENT_TIMESTAMP: 'current_timestamp',
          SVFOP_LOCALTIMESTAMP: 'localtimestamp',
        } as Record<string, string>
      )[e.op as string];
    case 'SubLink':
      if (e.subLinkType === 'EXISTS_SUBLINK') return 'exists';
      if (e.subLinkType === 'EXPR_SUBLINK') {
        const target = ((Object.values(e.subselect as Node)[0] as Node).targetList as Node[] | undefined)?.[0];
        const t = target?.ResTarget as Node | undefined;
        return (t?.name as string | undefined) ?? (t ? figure(t.val as Node) : undefined);
      }
      return undefined;
    case 'A_ArrayExpr':
      return 'array';
    default:
      return undefined;
  }
}

function typeOutputName(typeName: Node): string | undefined {
  const names = (typeName.names as Node[]).map((n) => n.String.sval as string);
  const name = names.at(-1);
  return name ? (TYPE_DISPLAY_NAMES[name] ?? name) : undefined;
}

/** `'1'::int4` is named "int4" by PostgreSQL, `'1'::integer` too: the catalog's name. */
const TYPE_DISPLAY_NAMES: Record<string, string> = {
  integer: 'int4',
  int: 'int4',
  smallint: 'int2',
  bigint: 'int8',
  real: 'float4',
  'double precision': 'float8',
  boolean: 'bool',
};
