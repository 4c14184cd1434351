/**
 * The served OpenAPI document as the contract test reads it: every `$ref` resolved, every
 * operation listed with its parameters, body and responses. Nothing here knows our routes.
 */

export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  propertyNames?: JsonSchema;
  maxProperties?: number;
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  allOf?: JsonSchema[];
  not?: JsonSchema;
  readOnly?: boolean;
  default?: unknown;
  examples?: unknown[];
  description?: string;
  [keyword: string]: unknown;
}

export interface Parameter {
  name: string;
  in: 'query' | 'path' | 'header' | 'cookie';
  required: boolean;
  schema: JsonSchema;
  style?: string;
  explode?: boolean;
  description?: string;
  /** Parameter-level examples: for expression parameters, the only values known to be valid. */
  examples?: Record<string, { value: unknown }>;
}

export interface MediaType {
  schema?: JsonSchema;
}

export interface Response {
  description: string;
  headers?: Record<string, { schema?: JsonSchema; required?: boolean }>;
  content?: Record<string, MediaType>;
}

export interface Operation {
  method: string;
  path: string;
  operationId: string;
  tags: string[];
  parameters: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, MediaType> };
  responses: Record<string, Response>;
  /** Scheme name -> scopes (roles), of the first requirement; empty for none. */
  security: Record<string, string[]>;
  description: string;
}

export interface OpenApiDocument {
  openapi: string;
  info: { description?: string };
  paths: Record<string, Record<string, unknown>>;
  components?: Record<string, Record<string, unknown>>;
  security?: Array<Record<string, string[]>>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** A copy of `value` with every local `$ref` replaced by its target (the document has no cycles). */
export function dereference<T>(value: T, document: OpenApiDocument, seen: string[] = []): T {
  if (Array.isArray(value)) return value.map((item) => dereference(item, document, seen)) as T;
  if (value === null || typeof value !== 'object') return value;
  const object = value as Record<string, unknown>;
  if (typeof object.$ref === 'string') {
    const ref = object.$ref;
    if (seen.includes(ref)) throw new Error(`cyclic $ref ${ref}`);
    const target = ref
      .replace(/^#\//, '')
      .split('/')
      .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], document);
    if (target === undefined) throw new Error(`unresolved $ref ${ref}`);
    const { $ref: _ref, ...siblings } = object;
    return {
      ...(dereference(target, document, [...seen, ref]) as object),
      ...dereference(siblings, document, seen),
    } as T;
  }
  return Object.fromEntries(Object.entries(object).map(([key, item]) => [key, dereference(item, document, seen)])) as T;
}

/** Every operation of the document, dereferenced, in document order. */
export function operationsOf(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    const shared = ((item.parameters as unknown[]) ?? []) as Parameter[];
    for (const method of METHODS) {
      const raw = item[method] as Record<string, unknown> | undefined;
      if (!raw) continue;
      const op = dereference(raw, document) as Record<string, unknown>;
      const requirements = (op.security ?? document.security ?? []) as Array<Record<string, string[]>>;
      operations.push({
        method: method.toUpperCase(),
        path,
        operationId: String(op.operationId ?? `${method} ${path}`),
        tags: (op.tags as string[]) ?? [],
        parameters: [...dereference(shared, document), ...((op.parameters as Parameter[]) ?? [])].map((p) => ({
          ...p,
          required: p.required === true || p.in === 'path',
        })),
        ...(op.requestBody ? { requestBody: op.requestBody as Operation['requestBody'] } : {}),
        responses: op.responses as Record<string, Response>,
        security: requirements[0] ?? {},
        description: String(op.description ?? ''),
      });
    }
  }
  return operations;
}

/** The documented response for a status: exact code, then `4XX`-style ranges, then `default`. */
export function documentedResponse(operation: Operation, status: number): Response | undefined {
  return (
    operation.responses[String(status)] ?? operation.responses[`${String(status)[0]}XX`] ?? operation.responses.default
  );
}

/** The parameter of a cross-parameter rule and whether the document states it (in its description). */
export function states(operation: Operation, parameter: string, words: RegExp): boolean {
  const p = operation.parameters.find((q) => q.name === parameter);
  return p !== undefined && words.test(`${p.description ?? ''} ${p.schema.description ?? ''}`);
}
