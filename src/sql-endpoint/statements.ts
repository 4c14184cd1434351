import { parse } from 'libpg-query';
import { SqlError } from './wire/session.js';
import { modelRelation, modelTableFunction } from './model/relations.js';
import type { ParseNode as Node } from './translate/parse-tree.js';

/**
 * A client's SQL text as statements, each classified by what it may do here: read the model
 * (`model`), read the catalog or constants (`catalog`), change a setting of the session, or end
 * a transaction block. Everything else is refused with the PostgreSQL code a read-only server
 * gives. Parsing is PostgreSQL's own parser (libpg-query), so what a client means is what we see.
 */

export type Statement =
  | { readonly kind: 'empty' }
  | { readonly kind: 'model'; readonly select: Node; readonly text: string }
  | { readonly kind: 'catalog'; readonly text: string }
  | {
      readonly kind: 'set';
      readonly name: string;
      readonly value: string | undefined;
      readonly local: boolean;
      readonly text: string;
    }
  | { readonly kind: 'show'; readonly name: string }
  | { readonly kind: 'transaction'; readonly action: 'begin' | 'commit' | 'rollback' }
  | { readonly kind: 'noop'; readonly tag: string };

/** Statements that change nothing a read-only session keeps: acknowledged with their tag. */
const NOOPS: Record<string, string> = {
  DiscardStmt: 'DISCARD ALL',
  DeallocateStmt: 'DEALLOCATE',
  ListenStmt: 'LISTEN',
  UnlistenStmt: 'UNLISTEN',
};

/** Statement kinds that would write, named as PostgreSQL's read-only error names them. */
const WRITES: Record<string, string> = {
  InsertStmt: 'INSERT',
  UpdateStmt: 'UPDATE',
  DeleteStmt: 'DELETE',
  MergeStmt: 'MERGE',
  CopyStmt: 'COPY',
  TruncateStmt: 'TRUNCATE TABLE',
  CreateStmt: 'CREATE TABLE',
  CreateTableAsStmt: 'CREATE TABLE AS',
  ViewStmt: 'CREATE VIEW',
  IndexStmt: 'CREATE INDEX',
  DropStmt: 'DROP',
  AlterTableStmt: 'ALTER TABLE',
  CreateFunctionStmt: 'CREATE FUNCTION',
  CreateSchemaStmt: 'CREATE SCHEMA',
  CreateSeqStmt: 'CREATE SEQUENCE',
  GrantStmt: 'GRANT',
  VacuumStmt: 'VACUUM',
  LockStmt: 'LOCK TABLE',
  CallStmt: 'CALL',
  DoStmt: 'DO',
  RenameStmt: 'ALTER',
  CommentStmt: 'COMMENT',
};

const CATALOG_SCHEMAS = new Set(['pg_catalog', 'information_schema']);

export async function parseStatements(text: string): Promise<Statement[]> {
  // PostgreSQL answers an empty string (or only semicolons and blanks) with EmptyQueryResponse; libpg-query refuses it.
  if (/^[\s;]*$/.test(text)) return [{ kind: 'empty' }];
  let tree: Node;
  try {
    tree = (await parse(text)) as Node;
  } catch (error) {
    const e = error as Error & { sqlDetails?: { cursorPosition?: number } };
    const position = e.sqlDetails?.cursorPosition;
    throw new SqlError(
      '42601',
      e.message.replace(/^syntax error at or near/, 'syntax error at or near'),
      position !== undefined ? { position: position + 1 } : {},
    );
  }
  const raw = (tree.stmts as Node[] | undefined) ?? [];
  if (raw.length === 0) return [{ kind: 'empty' }];
  return raw.map((r) => {
    const start = (r.stmt_location as number | undefined) ?? 0;
    const length = (r.stmt_len as number | undefined) ?? 0;
    const statementText = length ? sliceUtf8(text, start, length) : sliceUtf8(text, start);
    return classify(r.stmt as Node | undefined, statementText);
  });
}

/** libpg-query's locations are byte offsets into the UTF-8 text. */
function sliceUtf8(text: string, start: number, length?: number): string {
  const bytes = Buffer.from(text, 'utf8');
  return bytes.subarray(start, length === undefined ? undefined : start + length).toString('utf8');
}

function classify(stmt: Node | undefined, text: string): Statement {
  if (!stmt) return { kind: 'empty' };
  const [kind, node] = Object.entries(stmt)[0] as [string, Node];
  switch (kind) {
    case 'SelectStmt':
      return classifySelect(node, text);
    case 'VariableSetStmt':
      return classifySet(node, text);
    case 'VariableShowStmt':
      return { kind: 'show', name: (node.name as string).toLowerCase() };
    case 'TransactionStmt':
      return classifyTransaction(node);
    default: {
      if (NOOPS[kind]) return { kind: 'noop', tag: NOOPS[kind] };
      if (WRITES[kind]) throw new SqlError('25006', `cannot execute ${WRITES[kind]} in a read-only transaction`);
      throw new SqlError(
        '0A000',
        `${kind.replace(/Stmt$/, '')} statements are not supported: this endpoint answers SELECT over the reporting model`,
      );
    }
  }
}

function classifySelect(select: Node, text: string): Statement {
  const relations = { model: 0, catalog: 0, other: [] as string[] };
  walk(select, (kind, node) => {
    if (kind === 'RangeFunction') {
      // A table function of the model (campaign_ratios(...)) reads the model like a relation.
      for (const f of (node.functions as Node[] | undefined) ?? []) {
        const names = ((f.List?.items?.[0]?.FuncCall?.funcname as Node[] | undefined) ?? []).map(
          (n) => n.String?.sval as string,
        );
        if (names.length === 1 && modelTableFunction(names[0]!)) relations.model++;
      }
      return;
    }
    if (kind !== 'RangeVar') return;
    const schema = node.schemaname as string | undefined;
    const name = node.relname as string;
    if (schema && CATALOG_SCHEMAS.has(schema)) relations.catalog++;
    else if (!schema && (name.startsWith('pg_') || CATALOG_SCHEMAS.has(name))) relations.catalog++;
    else if ((!schema || schema === 'public') && modelRelation(name)) relations.model++;
    else relations.other.push(schema ? `${schema}.${name}` : name);
  });
  if (relations.model > 0 && relations.catalog > 0) {
    throw new SqlError('0A000', 'a statement reads either the reporting model or the catalog, not both');
  }
  if (relations.model > 0 || relations.other.length > 0) return { kind: 'model', select, text };
  return { kind: 'catalog', text };
}

function classifySet(node: Node, text: string): Statement {
  const local = node.is_local === true;
  switch (node.kind) {
    case 'VAR_SET_VALUE': {
      const args = (node.args as Node[] | undefined) ?? [];
      const value = args.map(constantText).join(', ');
      return { kind: 'set', name: (node.name as string).toLowerCase(), value, local, text };
    }
    case 'VAR_SET_DEFAULT':
    case 'VAR_RESET':
      return { kind: 'set', name: (node.name as string).toLowerCase(), value: undefined, local, text };
    case 'VAR_RESET_ALL':
      return { kind: 'set', name: 'all', value: undefined, local, text };
    case 'VAR_SET_MULTI':
      // SET TRANSACTION / SESSION CHARACTERISTICS: every transaction here is read-only already.
      return { kind: 'noop', tag: 'SET' };
    default:
      throw new SqlError('0A000', 'this form of SET is not supported');
  }
}

function constantText(arg: Node): string {
  const [kind, node] = Object.entries(arg)[0] as [string, Node];
  if (kind === 'A_Const') {
    if (node.sval) return (node.sval as Node).sval as string;
    if (node.ival) return String((node.ival as Node).ival ?? 0);
    if (node.fval) return (node.fval as Node).fval as string;
    if (node.boolval) return (node.boolval as Node).boolval ? 'on' : 'off';
    if (node.ival === undefined && node.sval === undefined) return '0';
  }
  if (kind === 'TypeCast') return constantText(node.arg as Node);
  throw new SqlError('22023', 'SET takes constant values only');
}

function classifyTransaction(node: Node): Statement {
  switch (node.kind) {
    case 'TRANS_STMT_BEGIN':
    case 'TRANS_STMT_START':
      return { kind: 'transaction', action: 'begin' };
    case 'TRANS_STMT_COMMIT':
      return { kind: 'transaction', action: 'commit' };
    case 'TRANS_STMT_ROLLBACK':
      return { kind: 'transaction', action: 'rollback' };
    default:
      throw new SqlError('0A000', 'savepoints and two-phase commit are not supported: the endpoint is read-only');
  }
}

/** Every node of a tree, depth first. */
function walk(node: unknown, visit: (kind: string, node: Node) => void): void {
  if (Array.isArray(node)) {
    for (const item of node) walk(item, visit);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  for (const [key, value] of Object.entries(node as Node)) {
    if (/^[A-Z]/.test(key) && value && typeof value === 'object' && !Array.isArray(value)) visit(key, value as Node);
    walk(value, visit);
  }
}
