import { SqlError } from '../wire/session.js';
import { modelRelation, modelTableFunction, type ModelTableFunction } from '../model/relations.js';
import { DATE_PARTS, FUNCTIONS, TABLE_FUNCTIONS } from './functions.js';
import { outputName } from './output-names.js';
import type { ParseNode as Node } from './parse-tree.js';

/**
 * A SELECT over the model, from PostgreSQL's parse tree (libpg-query) to DuckDB SQL that reads
 * the caller's organization only. The tree is walked by an allow-list: every node kind, operator,
 * function and type this file does not name is refused with a PostgreSQL error, so nothing the
 * client wrote reaches DuckDB as text. Relations become the model's scoped SELECTs; identifiers
 * are quoted; strings are bound parameters; numbers are re-spelled from the parsed value.
 *
 * PostgreSQL's semantics kept where DuckDB's differ: NULLS FIRST on descending sorts, `~` as a
 * partial match, `date_trunc` of a date as timestamptz, output column names (`sum`, `?column?`).
 * Kept DuckDB's on purpose: `/` between integers divides exactly (README "SQL endpoint").
 */

export interface TranslatedSelect {
  readonly sql: string;
  /** Values of the placeholders after the client's own ($1..$clientParams): the organization, then the statement's strings. */
  readonly boundValues: readonly string[];
  /** How many placeholders are the client's ($1..$n of the statement). */
  readonly clientParams: number;
  /** Whether the statement reads a relation of the model (else it is a catalog or constant query). */
  readonly readsModel: boolean;
}

const NOT_SUPPORTED = '0A000';
const SYNTAX = '42601';
const UNDEFINED_TABLE = '42P01';
const UNDEFINED_FUNCTION = '42883';

function refuse(code: string, message: string, location?: number): never {
  throw new SqlError(code, message, location !== undefined && location >= 0 ? { position: location + 1 } : {});
}

function kindOf(node: Node): [string, Node] {
  const keys = Object.keys(node);
  if (keys.length !== 1) refuse(SYNTAX, 'unexpected syntax tree');
  return [keys[0]!, node[keys[0]!] as Node];
}

export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

const NUMBER = /^[0-9]+(\.[0-9]*)?([eE][+-]?[0-9]+)?$|^\.[0-9]+([eE][+-]?[0-9]+)?$/;

/** PostgreSQL type names (as the parser spells them) and DuckDB's. */
const TYPES: ReadonlyMap<string, string> = new Map([
  ['int2', 'SMALLINT'],
  ['smallint', 'SMALLINT'],
  ['int4', 'INTEGER'],
  ['int', 'INTEGER'],
  ['integer', 'INTEGER'],
  ['int8', 'BIGINT'],
  ['bigint', 'BIGINT'],
  ['float4', 'REAL'],
  ['real', 'REAL'],
  ['float8', 'DOUBLE'],
  ['double precision', 'DOUBLE'],
  ['text', 'VARCHAR'],
  ['varchar', 'VARCHAR'],
  ['bpchar', 'VARCHAR'],
  ['char', 'VARCHAR'],
  ['name', 'VARCHAR'],
  ['date', 'DATE'],
  ['timestamp', 'TIMESTAMP'],
  ['timestamptz', 'TIMESTAMPTZ'],
  ['bool', 'BOOLEAN'],
  ['boolean', 'BOOLEAN'],
  ['interval', 'INTERVAL'],
]);

const BINARY_OPERATORS: ReadonlyMap<string, string> = new Map([
  ['=', '='],
  ['<>', '<>'],
  ['!=', '<>'],
  ['<', '<'],
  ['>', '>'],
  ['<=', '<='],
  ['>=', '>='],
  ['+', '+'],
  ['-', '-'],
  ['*', '*'],
  ['/', '/'],
  ['%', '%'],
  ['||', '||'],
]);

/** Regular expression operators: PostgreSQL's `~` finds a match anywhere, DuckDB's `~` must match whole. */
const REGEX_OPERATORS: ReadonlyMap<string, [negate: boolean, options: string]> = new Map([
  ['~', [false, '']],
  ['!~', [true, '']],
  ['~*', [false, 'i']],
  ['!~*', [true, 'i']],
]);

// PostgreSQL's FRAMEOPTION_* bits (nodes/parsenodes.h).
const FRAME = {
  NONDEFAULT: 0x1,
  RANGE: 0x2,
  ROWS: 0x4,
  GROUPS: 0x8,
  BETWEEN: 0x10,
  START_UNBOUNDED_PRECEDING: 0x20,
  START_UNBOUNDED_FOLLOWING: 0x80,
  END_UNBOUNDED_FOLLOWING: 0x100,
  START_CURRENT_ROW: 0x200,
  END_CURRENT_ROW: 0x400,
  START_OFFSET_PRECEDING: 0x800,
  END_OFFSET_PRECEDING: 0x1000,
  START_OFFSET_FOLLOWING: 0x2000,
  END_OFFSET_FOLLOWING: 0x4000,
  EXCLUSIONS: 0x8000 | 0x10000 | 0x20000,
} as const;

/**
 * @param select the statement's SelectStmt node (the contents of `{ SelectStmt: ... }`)
 * @param clientParams the number of the client's placeholders ($1..$n): the translation's own follow them
 * @param organizationId the caller's organization (from its credentials), bound into every relation
 * @param paramCasts DuckDB types the client's parameters are cast to (they arrive as text)
 * @param constantCasts DuckDB types the statement's strings are cast to, by placeholder number
 */
export function translateSelect(
  select: Node,
  clientParams: number,
  organizationId: number,
  paramCasts: readonly (string | undefined)[] = [],
  constantCasts: ReadonlyMap<number, string> = new Map(),
): TranslatedSelect {
  try {
    return new SelectTranslator(clientParams, organizationId, paramCasts, constantCasts).translate(select);
  } catch (error) {
    // A tree nested deeper than the walk's stack (thousands of NOTs or parentheses).
    if (error instanceof RangeError) throw new SqlError('54001', 'stack depth limit exceeded');
    throw error;
  }
}

class SelectTranslator {
  private readonly bound: string[] = [];
  private readsModel = false;
  private orgPlaceholder: string | undefined;

  constructor(
    private readonly clientParams: number,
    private readonly organizationId: number,
    private readonly paramCasts: readonly (string | undefined)[],
    /** Types the statement's strings are cast to, by placeholder: what DuckDB inferred, or text (PostgreSQL's type of an unknown literal). */
    private readonly constantCasts: ReadonlyMap<number, string>,
  ) {}

  translate(select: Node): TranslatedSelect {
    const sql = this.selectStmt(select, []);
    return { sql, boundValues: this.bound, clientParams: this.clientParams, readsModel: this.readsModel };
  }

  private bind(value: string): string {
    this.bound.push(value);
    const number = this.clientParams + this.bound.length;
    const cast = this.constantCasts.get(number);
    return cast ? `CAST($${number} AS ${cast})` : `$${number}`;
  }

  private org(): string {
    this.orgPlaceholder ??= `CAST(${this.bind(String(this.organizationId))} AS BIGINT)`;
    return this.orgPlaceholder;
  }

  /** `ctes`: names of the WITH queries in scope, innermost last. */
  private selectStmt(s: Node, outerCtes: readonly string[]): string {
    if (s.intoClause) refuse(NOT_SUPPORTED, 'SELECT INTO is not supported: the endpoint is read-only');
    if (s.lockingClause) refuse('25006', 'cannot lock rows in a read-only transaction');
    const ctes = [...outerCtes];
    let withSql = '';
    if (s.withClause) {
      const w = s.withClause as Node;
      if (w.recursive) refuse(NOT_SUPPORTED, 'WITH RECURSIVE is not supported');
      const parts: string[] = [];
      for (const c of w.ctes as Node[]) {
        const [kind, cte] = kindOf(c);
        if (kind !== 'CommonTableExpr') refuse(SYNTAX, 'unexpected WITH item');
        const [qkind, query] = kindOf(cte.ctequery as Node);
        if (qkind !== 'SelectStmt') refuse('25006', 'only SELECT is allowed in WITH: the endpoint is read-only');
        const columns = cte.aliascolnames
          ? `(${(cte.aliascolnames as Node[]).map((n) => quoteIdentifier(stringOf(n))).join(', ')})`
          : '';
        const materialized =
          cte.ctematerialized === 'CTEMaterializeAlways'
            ? ' MATERIALIZED'
            : cte.ctematerialized === 'CTEMaterializeNever'
              ? ' NOT MATERIALIZED'
              : '';
        parts.push(
          `${quoteIdentifier(cte.ctename as string)}${columns} AS${materialized} (${this.selectStmt(query, ctes)})`,
        );
        ctes.push(cte.ctename as string);
      }
      withSql = `WITH ${parts.join(', ')} `;
    }

    let body: string;
    if (s.op && s.op !== 'SETOP_NONE') {
      const op = { SETOP_UNION: 'UNION', SETOP_INTERSECT: 'INTERSECT', SETOP_EXCEPT: 'EXCEPT' }[s.op as string];
      if (!op) refuse(NOT_SUPPORTED, `set operation ${s.op} is not supported`);
      // PostgreSQL's UNION removes duplicates unless ALL; DuckDB's set operations say so explicitly too.
      body = `(${this.selectStmt(s.larg, ctes)}) ${op}${s.all ? ' ALL' : ''} (${this.selectStmt(s.rarg, ctes)})`;
    } else if (s.valuesLists) {
      body = `VALUES ${(s.valuesLists as Node[]).map((row) => `(${(kindOf(row)[1].items as Node[]).map((v) => this.expr(v, ctes)).join(', ')})`).join(', ')}`;
    } else {
      body = this.simpleSelect(s, ctes);
    }
    const tail: string[] = [];
    if (s.sortClause) tail.push(`ORDER BY ${(s.sortClause as Node[]).map((n) => this.sortBy(n, ctes)).join(', ')}`);
    if (s.limitOption === 'LIMIT_OPTION_WITH_TIES') refuse(NOT_SUPPORTED, 'FETCH ... WITH TIES is not supported');
    if (s.limitCount) tail.push(`LIMIT ${this.expr(s.limitCount, ctes)}`);
    if (s.limitOffset) tail.push(`OFFSET ${this.expr(s.limitOffset, ctes)}`);
    return `${withSql}${body}${tail.length ? ` ${tail.join(' ')}` : ''}`;
  }

  private simpleSelect(s: Node, ctes: readonly string[]): string {
    const parts: string[] = ['SELECT'];
    if (s.distinctClause) {
      const on = (s.distinctClause as Node[]).filter((n) => Object.keys(n).length > 0);
      parts.push(on.length ? `DISTINCT ON (${on.map((n) => this.expr(n, ctes)).join(', ')})` : 'DISTINCT');
    }
    const targets = (s.targetList as Node[] | undefined) ?? [];
    parts.push(targets.length ? targets.map((t) => this.resTarget(t, ctes)).join(', ') : '');
    if (s.fromClause) parts.push(`FROM ${(s.fromClause as Node[]).map((n) => this.fromItem(n, ctes)).join(', ')}`);
    if (s.whereClause) parts.push(`WHERE ${this.expr(s.whereClause, ctes)}`);
    if (s.groupClause) {
      parts.push(
        `GROUP BY ${s.groupDistinct ? 'DISTINCT ' : ''}${(s.groupClause as Node[]).map((n) => this.groupItem(n, ctes)).join(', ')}`,
      );
    }
    if (s.havingClause) parts.push(`HAVING ${this.expr(s.havingClause, ctes)}`);
    if (s.windowClause) {
      parts.push(
        `WINDOW ${(s.windowClause as Node[])
          .map((n) => {
            const w = kindOf(n)[1];
            return `${quoteIdentifier(w.name as string)} AS (${this.windowSpec(w, ctes)})`;
          })
          .join(', ')}`,
      );
    }
    return parts.join(' ');
  }

  private groupItem(n: Node, ctes: readonly string[]): string {
    const [kind, g] = kindOf(n);
    // A parenthesised list inside GROUPING SETS: one set of several expressions.
    if (kind === 'List')
      return `(${((g.items as Node[] | undefined) ?? []).map((c) => this.expr(c, ctes)).join(', ')})`;
    if (kind === 'GroupingSet') {
      const content = (g.content as Node[] | undefined) ?? [];
      const items = () => content.map((c) => this.expr(c, ctes)).join(', ');
      switch (g.kind) {
        case 'GROUPING_SET_EMPTY':
          return '()';
        case 'GROUPING_SET_ROLLUP':
          return `ROLLUP (${items()})`;
        case 'GROUPING_SET_CUBE':
          return `CUBE (${items()})`;
        case 'GROUPING_SET_SETS':
          return `GROUPING SETS (${content.map((c) => this.groupItem(c, ctes)).join(', ')})`;
        default:
          return `(${items()})`;
      }
    }
    return this.expr(n, ctes);
  }

  private resTarget(n: Node, ctes: readonly string[]): string {
    const t = kindOf(n)[1];
    const [kind] = kindOf(t.val as Node);
    const value = this.expr(t.val, ctes);
    if (kind === 'ColumnRef' && value.endsWith('*')) return value;
    // PostgreSQL's names for unnamed outputs (`sum`, `?column?`): BI tools show and key on them.
    const name = (t.name as string | undefined) ?? outputName(t.val as Node);
    return `${value} AS ${quoteIdentifier(name)}`;
  }

  private fromItem(n: Node, ctes: readonly string[]): string {
    const [kind, item] = kindOf(n);
    switch (kind) {
      case 'RangeVar': {
        const schema = item.schemaname as string | undefined;
        const name = item.relname as string;
        const alias = this.alias(item.alias, name);
        if (item.catalogname)
          refuse(UNDEFINED_TABLE, `relation "${item.catalogname}.${schema}.${name}" does not exist`, item.location);
        if (!schema && ctes.includes(name)) return `${quoteIdentifier(name)}${item.alias ? ` AS ${alias}` : ''}`;
        const relation = schema === undefined || schema === 'public' ? modelRelation(name) : undefined;
        if (!relation)
          refuse(UNDEFINED_TABLE, `relation "${schema ? `${schema}.` : ''}${name}" does not exist`, item.location);
        this.readsModel = true;
        return `(${relation.body.replaceAll('{org}', this.org())}) AS ${alias}`;
      }
      case 'JoinExpr': {
        const type = { JOIN_INNER: 'JOIN', JOIN_LEFT: 'LEFT JOIN', JOIN_FULL: 'FULL JOIN', JOIN_RIGHT: 'RIGHT JOIN' }[
          item.jointype as string
        ];
        if (!type) refuse(NOT_SUPPORTED, `join type ${item.jointype} is not supported`);
        const cross = type === 'JOIN' && !item.quals && !item.usingClause && !item.isNatural;
        let sql = `${this.fromItem(item.larg, ctes)} ${item.isNatural ? 'NATURAL ' : ''}${cross ? 'CROSS JOIN' : type} ${this.fromItem(item.rarg, ctes)}`;
        if (item.usingClause)
          sql += ` USING (${(item.usingClause as Node[]).map((c) => quoteIdentifier(stringOf(c))).join(', ')})`;
        if (item.quals) sql += ` ON ${this.expr(item.quals, ctes)}`;
        if (item.join_using_alias || item.alias) refuse(NOT_SUPPORTED, 'an alias on a join is not supported');
        return `(${sql})`;
      }
      case 'RangeSubselect': {
        const [qkind, query] = kindOf(item.subquery as Node);
        if (qkind !== 'SelectStmt') refuse(SYNTAX, 'a subquery in FROM must be a SELECT');
        if (!item.alias) refuse(SYNTAX, 'subquery in FROM must have an alias');
        return `${item.lateral ? 'LATERAL ' : ''}(${this.selectStmt(query, ctes)}) AS ${this.alias(item.alias, '')}`;
      }
      case 'RangeFunction': {
        if (item.ordinality || item.is_rowsfrom || (item.functions as Node[]).length !== 1)
          refuse(NOT_SUPPORTED, 'this form of table function is not supported');
        const call = kindOf(((item.functions as Node[])[0]! as Node).List.items[0] as Node);
        if (call[0] !== 'FuncCall') refuse(NOT_SUPPORTED, 'only function calls are allowed in FROM');
        const name = functionName(call[1]);
        const modelFunction = modelTableFunction(name);
        if (modelFunction) return this.modelFunction(modelFunction, call[1], item.alias, ctes);
        if (!TABLE_FUNCTIONS.has(name))
          refuse(UNDEFINED_FUNCTION, `function ${name} does not exist or is not a table function`, call[1].location);
        const args = ((call[1].args as Node[] | undefined) ?? []).map((a) => this.expr(a, ctes));
        return `${name}(${args.join(', ')}) AS ${this.alias(item.alias, name, [name])}`;
      }
      default:
        return refuse(NOT_SUPPORTED, `${kind} in FROM is not supported`);
    }
  }

  /** A table function of the model: its body with the organization and its arguments (each cast to its type) in place. */
  private modelFunction(fn: ModelTableFunction, call: Node, alias: Node | undefined, ctes: readonly string[]): string {
    const args = (call.args as Node[] | undefined) ?? [];
    if (args.length !== fn.args.length || call.agg_star || call.over) {
      refuse(
        UNDEFINED_FUNCTION,
        `function ${fn.name} takes ${fn.args.map((a) => `${a.name} ${a.type}`).join(', ')}`,
        call.location,
      );
    }
    const [start, end] = args.map(
      (a, i) => `CAST(${this.expr(a, ctes)} AS ${fn.args[i]!.type === 'date' ? 'DATE' : 'VARCHAR'})`,
    );
    this.readsModel = true;
    const body = fn.body.replaceAll('{org}', this.org()).replaceAll('{start}', start!).replaceAll('{end}', end!);
    return `(${body}) AS ${this.alias(alias, fn.name)}`;
  }

  private alias(alias: Node | undefined, fallback: string, defaultColumns?: readonly string[]): string {
    const name = (alias?.aliasname as string | undefined) ?? fallback;
    const columns = (alias?.colnames as Node[] | undefined)?.map(stringOf) ?? defaultColumns;
    return `${quoteIdentifier(name)}${columns ? `(${columns.map(quoteIdentifier).join(', ')})` : ''}`;
  }

  private sortBy(n: Node, ctes: readonly string[]): string {
    const s = kindOf(n)[1];
    if (s.sortby_dir === 'SORTBY_USING') refuse(NOT_SUPPORTED, 'ORDER BY ... USING is not supported');
    const descending = s.sortby_dir === 'SORTBY_DESC';
    // PostgreSQL sorts NULL as the largest value: last ascending, first descending.
    const nullsFirst =
      s.sortby_nulls === 'SORTBY_NULLS_FIRST' || (s.sortby_nulls !== 'SORTBY_NULLS_LAST' && descending);
    return `${this.expr(s.node, ctes)} ${descending ? 'DESC' : 'ASC'} NULLS ${nullsFirst ? 'FIRST' : 'LAST'}`;
  }

  private windowSpec(w: Node, ctes: readonly string[]): string {
    const parts: string[] = [];
    if (w.refname) parts.push(quoteIdentifier(w.refname as string));
    if (w.partitionClause)
      parts.push(`PARTITION BY ${(w.partitionClause as Node[]).map((e) => this.expr(e, ctes)).join(', ')}`);
    if (w.orderClause) parts.push(`ORDER BY ${(w.orderClause as Node[]).map((e) => this.sortBy(e, ctes)).join(', ')}`);
    const options = (w.frameOptions as number | undefined) ?? 0;
    if (options & FRAME.NONDEFAULT) parts.push(this.frame(options, w, ctes));
    return parts.join(' ');
  }

  private frame(options: number, w: Node, ctes: readonly string[]): string {
    if (options & FRAME.EXCLUSIONS) refuse(NOT_SUPPORTED, 'frame exclusions are not supported');
    if (options & FRAME.GROUPS) refuse(NOT_SUPPORTED, 'GROUPS frames are not supported');
    const unit = options & FRAME.ROWS ? 'ROWS' : 'RANGE';
    const bound = (
      unbounded: number,
      current: number,
      preceding: number,
      following: number,
      offset: Node | undefined,
      unboundedWord: string,
    ) => {
      if (options & unbounded) return `UNBOUNDED ${unboundedWord}`;
      if (options & current) return 'CURRENT ROW';
      if (options & preceding) return `${this.expr(offset!, ctes)} PRECEDING`;
      if (options & following) return `${this.expr(offset!, ctes)} FOLLOWING`;
      return refuse(SYNTAX, 'unexpected window frame');
    };
    const start = bound(
      FRAME.START_UNBOUNDED_PRECEDING,
      FRAME.START_CURRENT_ROW,
      FRAME.START_OFFSET_PRECEDING,
      FRAME.START_OFFSET_FOLLOWING,
      w.startOffset,
      options & FRAME.START_UNBOUNDED_FOLLOWING ? 'FOLLOWING' : 'PRECEDING',
    );
    if (!(options & FRAME.BETWEEN)) return `${unit} ${start}`;
    const end = bound(
      FRAME.END_UNBOUNDED_FOLLOWING,
      FRAME.END_CURRENT_ROW,
      FRAME.END_OFFSET_PRECEDING,
      FRAME.END_OFFSET_FOLLOWING,
      w.endOffset,
      'FOLLOWING',
    );
    return `${unit} BETWEEN ${start} AND ${end}`;
  }

  private expr(n: Node, ctes: readonly string[]): string {
    const [kind, e] = kindOf(n);
    switch (kind) {
      case 'ColumnRef':
        return (e.fields as Node[])
          .map((field) => {
            const [fk, fv] = kindOf(field);
            if (fk === 'A_Star') return '*';
            return quoteIdentifier(fv.sval as string);
          })
          .join('.');
      case 'ParamRef': {
        // The parse tree leaves out a zero.
        const number = (e.number as number | undefined) ?? 0;
        if (number < 1 || number > this.clientParams) refuse('42P02', `there is no parameter $${number}`, e.location);
        const cast = this.paramCasts[number - 1];
        return cast ? `CAST($${number} AS ${cast})` : `$${number}`;
      }
      case 'A_Const':
        return this.constant(e);
      case 'TypeCast':
        return `CAST(${this.expr(e.arg, ctes)} AS ${typeName(e.typeName)})`;
      case 'A_Expr':
        return this.operator(e, ctes);
      case 'BoolExpr': {
        const args = (e.args as Node[]).map((a) => `(${this.expr(a, ctes)})`);
        if (e.boolop === 'NOT_EXPR') return `(NOT ${args[0]})`;
        return `(${args.join(e.boolop === 'AND_EXPR' ? ' AND ' : ' OR ')})`;
      }
      case 'NullTest':
        return `(${this.expr(e.arg, ctes)} IS ${e.nulltesttype === 'IS_NOT_NULL' ? 'NOT ' : ''}NULL)`;
      case 'BooleanTest': {
        const test = {
          IS_TRUE: 'IS TRUE',
          IS_NOT_TRUE: 'IS NOT TRUE',
          IS_FALSE: 'IS FALSE',
          IS_NOT_FALSE: 'IS NOT FALSE',
          IS_UNKNOWN: 'IS NULL',
          IS_NOT_UNKNOWN: 'IS NOT NULL',
        }[e.booltesttype as string];
        if (!test) refuse(SYNTAX, 'unexpected boolean test');
        return `(${this.expr(e.arg, ctes)} ${test})`;
      }
      case 'CaseExpr': {
        const parts = ['CASE'];
        if (e.arg) parts.push(this.expr(e.arg, ctes));
        for (const w of e.args as Node[]) {
          const when = kindOf(w)[1];
          parts.push(`WHEN ${this.expr(when.expr, ctes)} THEN ${this.expr(when.result, ctes)}`);
        }
        if (e.defresult) parts.push(`ELSE ${this.expr(e.defresult, ctes)}`);
        parts.push('END');
        return `(${parts.join(' ')})`;
      }
      case 'CoalesceExpr':
        return `coalesce(${(e.args as Node[]).map((a) => this.expr(a, ctes)).join(', ')})`;
      case 'MinMaxExpr':
        return `${e.op === 'IS_GREATEST' ? 'greatest' : 'least'}(${(e.args as Node[]).map((a) => this.expr(a, ctes)).join(', ')})`;
      case 'SQLValueFunction':
        return sqlValueFunction(e.op as string);
      case 'FuncCall':
        return this.functionCall(e, ctes);
      case 'SubLink':
        return this.subLink(e, ctes);
      case 'A_ArrayExpr':
        return `[${((e.elements as Node[] | undefined) ?? []).map((a) => this.expr(a, ctes)).join(', ')}]`;
      default:
        return refuse(NOT_SUPPORTED, `${kind} is not supported in a statement over the model`, e.location);
    }
  }

  private constant(c: Node): string {
    if (c.isnull) return 'NULL';
    if (c.ival !== undefined) return String((c.ival as Node).ival ?? 0);
    if (c.fval !== undefined) {
      const text = (c.fval as Node).fval as string;
      const digits = text.startsWith('-') ? text.slice(1) : text;
      if (!NUMBER.test(digits)) refuse(SYNTAX, `invalid number ${JSON.stringify(text)}`, c.location);
      // PostgreSQL reads 1.5 as numeric; DuckDB as DECIMAL too (exact, not double).
      return text;
    }
    if (c.boolval !== undefined) return (c.boolval as Node).boolval ? 'TRUE' : 'FALSE';
    if (c.sval !== undefined) return this.bind(((c.sval as Node).sval as string | undefined) ?? '');
    return refuse(NOT_SUPPORTED, 'this kind of constant is not supported', c.location);
  }

  private operator(e: Node, ctes: readonly string[]): string {
    const name = e.name ? (e.name as Node[]).map(stringOf).at(-1)! : '';
    const left = () => this.expr(e.lexpr, ctes);
    const right = () => this.expr(e.rexpr, ctes);
    switch (e.kind) {
      case 'AEXPR_OP': {
        const regex = REGEX_OPERATORS.get(name);
        if (regex) {
          const [negate, options] = regex;
          return `(${negate ? 'NOT ' : ''}regexp_matches(${left()}, ${right()}${options ? `, '${options}'` : ''}))`;
        }
        const op = BINARY_OPERATORS.get(name);
        if (!op) refuse(UNDEFINED_FUNCTION, `operator does not exist: ${name}`, e.location);
        if (!e.lexpr) {
          if (op !== '-' && op !== '+') refuse(UNDEFINED_FUNCTION, `operator does not exist: ${name}`, e.location);
          return `(${op}${right()})`;
        }
        return `(${left()} ${op} ${right()})`;
      }
      case 'AEXPR_DISTINCT':
        return `(${left()} IS DISTINCT FROM ${right()})`;
      case 'AEXPR_NOT_DISTINCT':
        return `(${left()} IS NOT DISTINCT FROM ${right()})`;
      case 'AEXPR_NULLIF':
        return `nullif(${left()}, ${right()})`;
      case 'AEXPR_IN': {
        const items = (kindOf(e.rexpr)[1].items as Node[]).map((i) => this.expr(i, ctes));
        return `(${left()} ${name === '<>' ? 'NOT IN' : 'IN'} (${items.join(', ')}))`;
      }
      case 'AEXPR_LIKE':
      case 'AEXPR_ILIKE': {
        const negate = name.startsWith('!');
        const word = e.kind === 'AEXPR_ILIKE' ? 'ILIKE' : 'LIKE';
        return `(${left()} ${negate ? 'NOT ' : ''}${word} ${right()})`;
      }
      case 'AEXPR_BETWEEN':
      case 'AEXPR_NOT_BETWEEN': {
        const [low, high] = (kindOf(e.rexpr)[1].items as Node[]).map((i) => this.expr(i, ctes));
        return `(${left()} ${e.kind === 'AEXPR_NOT_BETWEEN' ? 'NOT ' : ''}BETWEEN ${low} AND ${high})`;
      }
      case 'AEXPR_OP_ANY':
      case 'AEXPR_OP_ALL': {
        const op = BINARY_OPERATORS.get(name);
        if (!op) refuse(UNDEFINED_FUNCTION, `operator does not exist: ${name}`, e.location);
        return `(${left()} ${op} ${e.kind === 'AEXPR_OP_ANY' ? 'ANY' : 'ALL'}(${right()}))`;
      }
      default:
        return refuse(NOT_SUPPORTED, `operator kind ${e.kind} is not supported`, e.location);
    }
  }

  private functionCall(e: Node, ctes: readonly string[]): string {
    const name = functionName(e);
    const spelling = FUNCTIONS.get(name);
    if (!spelling) refuse(UNDEFINED_FUNCTION, `function ${name} does not exist`, e.location);
    if (e.agg_within_group || e.func_variadic)
      refuse(NOT_SUPPORTED, `this form of ${name} is not supported`, e.location);
    const rawArgs = (e.args as Node[] | undefined) ?? [];
    const count = e.agg_star ? 0 : rawArgs.length;
    if (count < spelling.args[0] || count > spelling.args[1])
      refuse(UNDEFINED_FUNCTION, `function ${name} with ${count} arguments does not exist`, e.location);
    if (spelling.kind === 'window' && !e.over)
      refuse('42809', `window function ${name} requires an OVER clause`, e.location);
    if ((e.agg_distinct || e.agg_order || e.agg_filter) && spelling.kind !== 'aggregate') {
      refuse('42809', `${name} is not an aggregate function`, e.location);
    }
    let args: string[];
    if (name === 'date_trunc' || name === 'date_part' || name === 'extract') {
      // The part is a keyword of ours, not a bound value: DuckDB wants it constant.
      const part = rawArgs[0] ? kindOf(rawArgs[0]) : undefined;
      const text =
        part?.[0] === 'A_Const'
          ? ((part[1].sval as Node | undefined)?.sval as string | undefined)?.toLowerCase()
          : undefined;
      if (!text || !DATE_PARTS.has(text)) refuse('22023', `unit "${text ?? '?'}" not recognized`, e.location);
      args = [`'${text}'`, this.expr(rawArgs[1]!, ctes)];
    } else {
      args = rawArgs.map((a) => this.expr(a, ctes));
    }
    let sql = `${spelling.duckdb}(${e.agg_distinct ? 'DISTINCT ' : ''}${e.agg_star ? '*' : args.join(', ')}`;
    if (e.agg_order) sql += ` ORDER BY ${(e.agg_order as Node[]).map((s) => this.sortBy(s, ctes)).join(', ')}`;
    sql += ')';
    if (e.agg_filter) sql += ` FILTER (WHERE ${this.expr(e.agg_filter, ctes)})`;
    if (e.over) {
      const over = e.over as Node;
      const spec = this.windowSpec(over, ctes);
      sql +=
        over.name && !over.partitionClause && !over.orderClause && !(over.frameOptions & FRAME.NONDEFAULT)
          ? ` OVER ${quoteIdentifier(over.name as string)}`
          : ` OVER (${spec})`;
    }
    // PostgreSQL's extract answers numeric, date_part double; DuckDB both a BIGINT.
    if (name === 'extract') return `CAST(${sql} AS DECIMAL(38,6))`;
    // PostgreSQL truncates a date as a timestamptz (the date cast to one); DuckDB answers a timestamp.
    if (name === 'date_trunc' && !isTimestampCast(rawArgs[1]!)) return `CAST(${sql} AS TIMESTAMPTZ)`;
    return sql;
  }

  private subLink(e: Node, ctes: readonly string[]): string {
    const [qkind, query] = kindOf(e.subselect as Node);
    if (qkind !== 'SelectStmt') refuse(SYNTAX, 'a subquery must be a SELECT');
    const sub = `(${this.selectStmt(query, ctes)})`;
    switch (e.subLinkType) {
      case 'EXISTS_SUBLINK':
        return `(EXISTS ${sub})`;
      case 'EXPR_SUBLINK':
        return sub;
      case 'ANY_SUBLINK': {
        const name = e.operName ? (e.operName as Node[]).map(stringOf).at(-1)! : '=';
        if (name === '=') return `(${this.expr(e.testexpr, ctes)} IN ${sub})`;
        const op = BINARY_OPERATORS.get(name);
        if (!op) refuse(UNDEFINED_FUNCTION, `operator does not exist: ${name}`, e.location);
        return `(${this.expr(e.testexpr, ctes)} ${op} ANY ${sub})`;
      }
      case 'ALL_SUBLINK': {
        const name = (e.operName as Node[]).map(stringOf).at(-1)!;
        const op = BINARY_OPERATORS.get(name);
        if (!op) refuse(UNDEFINED_FUNCTION, `operator does not exist: ${name}`, e.location);
        return `(${this.expr(e.testexpr, ctes)} ${op} ALL ${sub})`;
      }
      default:
        return refuse(NOT_SUPPORTED, `subquery kind ${e.subLinkType} is not supported`, e.location);
    }
  }
}

function stringOf(n: Node): string {
  const [kind, v] = kindOf(n);
  if (kind !== 'String') refuse(SYNTAX, 'expected a name');
  return v.sval as string;
}

/** A function's name without the pg_catalog schema (any other schema is no function of ours). */
export function functionName(call: Node): string {
  const names = (call.funcname as Node[]).map(stringOf);
  if (names.length === 2 && names[0] === 'pg_catalog') return names[1]!;
  if (names.length !== 1) refuse(UNDEFINED_FUNCTION, `function ${names.join('.')} does not exist`, call.location);
  return names[0]!;
}

function typeName(t: Node): string {
  const names = (t.names as Node[]).map(stringOf);
  const name = names.length === 2 && names[0] === 'pg_catalog' ? names[1]! : names.join('.');
  if (t.arrayBounds) refuse(NOT_SUPPORTED, 'array types are not supported', t.location);
  if (name === 'numeric' || name === 'decimal') {
    const mods = ((t.typmods as Node[] | undefined) ?? []).map((m) =>
      Number((kindOf(m)[1].ival as Node | undefined)?.ival ?? 0),
    );
    // A bare numeric is exact in PostgreSQL; DuckDB's bare DECIMAL would keep 3 decimals.
    const [precision = 38, scale = mods.length === 0 ? 10 : 0] = mods;
    if (precision < 1 || precision > 38 || scale < 0 || scale > precision)
      refuse('22023', `NUMERIC precision ${precision} must be between 1 and 38`, t.location);
    return `DECIMAL(${precision},${scale})`;
  }
  const duck = TYPES.get(name);
  if (!duck) refuse('42704', `type "${name}" does not exist`, t.location);
  return duck;
}

/** Whether an expression is a cast to timestamp (without zone), whose date_trunc PostgreSQL answers as a timestamp. */
function isTimestampCast(node: Node): boolean {
  const [kind, e] = kindOf(node);
  if (kind !== 'TypeCast') return false;
  const name = ((e.typeName as Node).names as Node[]).map(stringOf).at(-1);
  return name === 'timestamp';
}

function sqlValueFunction(op: string): string {
  switch (op) {
    case 'SVFOP_CURRENT_DATE':
      return 'current_date';
    case 'SVFOP_CURRENT_TIMESTAMP':
    case 'SVFOP_LOCALTIMESTAMP':
      return 'current_timestamp';
    default:
      return refuse(
        NOT_SUPPORTED,
        `${op.replace('SVFOP_', '').toLowerCase()} is not supported in a statement over the model`,
      );
  }
}
