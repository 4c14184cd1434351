import fc from 'fast-check';
import type { Draft, RuleContext } from './documented-rules.js';
import { RULES } from './documented-rules.js';
import type { JsonSchema, Operation, Parameter } from './openapi-document.js';
import { typesOf, valueArbitrary } from './schema-arbitrary.js';
import { bodyMutations, valueMutations } from './schema-mutations.js';
import type { SchemaValidator } from './schema-validator.js';

/**
 * Requests from the document: valid ones (every documented parameter and body member drawn from
 * its schema, expression parameters from their documented examples, then the stated
 * cross-parameter rules applied) and invalid ones (a valid minimal request with one parameter
 * or one body member broken).
 */

export interface WireRequest {
  method: string;
  target: string;
  headers: Record<string, string>;
  body?: string;
}

export type Expectation =
  | { kind: 'valid' }
  | { kind: 'invalid-parameter'; parameter: string; rule: string }
  | { kind: 'invalid-body'; path: string; rule: string }
  | { kind: 'invalid-media'; rule: string; expected: readonly number[] }
  | { kind: 'security'; expected: number };

export interface ContractRequest {
  readonly operation: Operation;
  readonly wire: WireRequest;
  readonly expectation: Expectation;
}

export interface BuildContext extends RuleContext {
  /** Path parameter assignments known to exist, per operation path. */
  knownPathParams(path: string): ReadonlyArray<Record<string, string>>;
}

/** An expression parameter: only its documented examples are known to be valid. */
function examplesOf(parameter: Parameter): unknown[] | undefined {
  const values = Object.values(parameter.examples ?? {}).map((example) => example.value);
  return values.length > 0 ? values : undefined;
}

function parameterArbitrary(parameter: Parameter): fc.Arbitrary<unknown> {
  const examples = examplesOf(parameter);
  return examples ? fc.constantFrom(...examples) : valueArbitrary(parameter.schema);
}

/** Pairs of an optional value: present about half of the time. */
function maybe<T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> {
  return fc.option(arbitrary, { nil: undefined, freq: 2 });
}

function bodyContent(operation: Operation): Array<[string, JsonSchema]> {
  return Object.entries(operation.requestBody?.content ?? {}).map(([type, media]) => [type, media.schema ?? {}]);
}

/** Media types of the success response, so an Accept header can ask for each. */
function successTypes(operation: Operation): string[] {
  const success = Object.entries(operation.responses).find(([status]) => /^2/.test(status))?.[1];
  return Object.keys(success?.content ?? {});
}

/** Valid drafts; knownIds says whether the path ids are ones that exist. */
export function validDraftArbitrary(
  operation: Operation,
  ctx: BuildContext,
): fc.Arbitrary<{ draft: Draft; knownIds: boolean }> {
  const pathParameters = operation.parameters.filter((p) => p.in === 'path');
  const known = ctx.knownPathParams(operation.path);
  const generatedPath = fc
    .record(Object.fromEntries(pathParameters.map((p) => [p.name, valueArbitrary(p.schema)])))
    .map((values) => ({ values: values as Record<string, unknown>, knownIds: false }));
  const path =
    pathParameters.length === 0
      ? fc.constant({ values: {}, knownIds: true })
      : known.length === 0
        ? generatedPath
        : fc.oneof(
            {
              weight: 4,
              arbitrary: fc
                .constantFrom(...known)
                .map((values) => ({ values: values as Record<string, unknown>, knownIds: true })),
            },
            { weight: 1, arbitrary: generatedPath },
          );
  const query = fc.record(
    Object.fromEntries(
      operation.parameters
        .filter((p) => p.in === 'query')
        .map((p) => [p.name, p.required ? parameterArbitrary(p) : maybe(parameterArbitrary(p))]),
    ),
  );
  const headers = fc.record(
    Object.fromEntries(
      operation.parameters
        .filter((p) => p.in === 'header')
        .map((p) => [p.name, p.required ? parameterArbitrary(p) : maybe(parameterArbitrary(p))]),
    ),
  );
  const contents = bodyContent(operation);
  const body =
    contents.length === 0
      ? fc.constant(undefined)
      : fc
          .constantFrom(...contents)
          .chain(([type, schema]) => valueArbitrary(schema).map((value) => ({ type, value })));
  const types = successTypes(operation);
  const accept = types.length > 1 ? maybe(fc.constantFrom(...types)) : fc.constant(undefined);
  return fc
    .record({ path, query, headers, body, accept })
    .map(({ path: p, query: q, headers: h, body: b, accept: a }) => {
      const draft: Draft = {
        pathParams: p.values,
        query: dropUndefined(q),
        headers: Object.fromEntries(Object.entries(dropUndefined(h)).map(([name, value]) => [name, String(value)])),
        ...(b ? { body: b.value, contentType: b.type } : {}),
        ...(a ? { accept: a } : {}),
      };
      return { draft, knownIds: p.knownIds };
    });
}

function dropUndefined(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined));
}

/** Applies the cross-parameter rules the document states for this operation. */
export function applyRules(operation: Operation, draft: Draft, ctx: RuleContext): void {
  for (const rule of RULES)
    if (rule.stated(operation) && rule.appliesTo(operation, draft)) rule.apply(draft, ctx, operation);
}

/** A query value on the wire (RFC 6570 form style), percent-encoded. */
function queryPairs(parameter: Parameter | undefined, name: string, value: unknown): string[] {
  const encode = (v: unknown) => encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v));
  if (Array.isArray(value)) {
    if (parameter?.explode === false) return [`${encodeURIComponent(name)}=${value.map(encode).join(',')}`];
    return value.map((item) => `${encodeURIComponent(name)}=${encode(item)}`);
  }
  return [`${encodeURIComponent(name)}=${encode(value)}`];
}

export function toWire(
  operation: Operation,
  draft: Draft,
  auth: Record<string, string>,
  rawQuery: Record<string, string> = {},
): WireRequest {
  const path = operation.path.replace(/\{(\w+)\}/g, (_, name: string) =>
    encodeURIComponent(String(draft.pathParams[name])),
  );
  const pairs = [
    ...Object.entries(draft.query).flatMap(([name, value]) =>
      queryPairs(
        operation.parameters.find((p) => p.name === name && p.in === 'query'),
        name,
        value,
      ),
    ),
    ...Object.entries(rawQuery).map(([name, raw]) => `${encodeURIComponent(name)}=${raw}`),
  ];
  const headers: Record<string, string> = { ...auth, ...draft.headers };
  if (draft.accept) headers.accept = draft.accept;
  let body: string | undefined;
  if (draft.body !== undefined && draft.contentType) {
    headers['content-type'] = draft.contentType;
    body = draft.contentType === 'application/x-www-form-urlencoded' ? formOf(draft.body) : JSON.stringify(draft.body);
  }
  return {
    method: operation.method,
    target: pairs.length > 0 ? `${path}?${pairs.join('&')}` : path,
    headers,
    ...(body === undefined ? {} : { body }),
  };
}

/** A form body (a non-object, as an invalid body may be, goes as its text). */
function formOf(body: unknown): string {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return String(body);
  return new URLSearchParams(
    Object.entries(body).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
  ).toString();
}

/** A wire string read back as the schema's type, the way the service's parsers read it. */
function deserialize(raw: string, schema: JsonSchema, explode: boolean | undefined): unknown {
  const types = typesOf(schema);
  if (types.includes('array'))
    return (explode === false ? raw.split(',') : [raw]).map((item) => deserialize(item, schema.items ?? {}, undefined));
  if ((types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?$/.test(raw)) return Number(raw);
  if (types.includes('boolean') && (raw === 'true' || raw === 'false')) return raw === 'true';
  return raw;
}

function wireOf(value: unknown): string {
  if (Array.isArray(value)) return value.map(wireOf).join(',');
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export interface ParameterMutation {
  parameter: Parameter;
  rule: string;
  /** The raw (percent-encoded) value on the wire, or undefined to leave a required parameter out. */
  raw: string | undefined;
}

/** Invalid values of each parameter that a real validator refuses too. */
export function parameterMutations(operation: Operation, validator: SchemaValidator): ParameterMutation[] {
  const out: ParameterMutation[] = [];
  for (const parameter of operation.parameters) {
    if (parameter.required && parameter.in !== 'path')
      out.push({ parameter, rule: 'missing required parameter', raw: undefined });
    const candidates = new Map<string, string>();
    for (const m of valueMutations(parameter.schema)) candidates.set(wireOf(m.value), m.rule);
    for (const extra of ['', 'abc', '1.5', '-1', 'x'.repeat(300)])
      if (!candidates.has(extra)) candidates.set(extra, `the value "${extra.slice(0, 12)}"`);
    for (const [wire, rule] of candidates) {
      if (parameter.in === 'path' && wire === '') continue; // an empty segment is another path
      if (parameter.in === 'header' && !/^[\x20-\x7e]*$/.test(wire)) continue; // not sendable as a header
      if (validator.accepts(parameter.schema, deserialize(wire, parameter.schema, parameter.explode))) continue;
      out.push({ parameter, rule, raw: encodeURIComponent(wire).replaceAll('%2C', ',') });
    }
  }
  return out;
}

/** The draft with its required parameters only: no optional query, header or Accept. */
export function minimalDraft(operation: Operation, base: Draft): Draft {
  const minimal: Draft = {
    ...base,
    query: Object.fromEntries(
      Object.entries(base.query).filter(([key]) =>
        operation.parameters.some((p) => p.name === key && p.in === 'query' && p.required),
      ),
    ),
    headers: {},
  };
  delete minimal.accept;
  return minimal;
}

/** A valid request with one parameter broken, everything else minimal (required parameters only). */
export function withBrokenParameter(
  operation: Operation,
  base: Draft,
  mutation: ParameterMutation,
  auth: Record<string, string>,
): WireRequest {
  const name = mutation.parameter.name;
  const minimal = minimalDraft(operation, base);
  if (mutation.parameter.in === 'query') {
    const { [name]: _broken, ...query } = minimal.query;
    return toWire(operation, { ...minimal, query }, auth, mutation.raw === undefined ? {} : { [name]: mutation.raw });
  }
  if (mutation.parameter.in === 'header') {
    const wire = toWire(operation, minimal, auth);
    if (mutation.raw !== undefined) wire.headers[name] = decodeURIComponent(mutation.raw);
    return wire;
  }
  const wire = toWire(operation, minimal, auth);
  const segments = operation.path.split('/');
  const index = segments.indexOf(`{${name}}`);
  const actual = wire.target.split('?')[0]!.split('/');
  actual[index] = mutation.raw ?? '';
  return {
    ...wire,
    target: [actual.join('/'), wire.target.split('?')[1]].filter((part) => part !== undefined).join('?'),
  };
}

export interface BodyBreak {
  path: string;
  rule: string;
  body: unknown;
}

/** Single-rule breaks of a valid body that a real validator refuses too. */
export function bodyBreaks(schema: JsonSchema, body: unknown, validator: SchemaValidator): BodyBreak[] {
  const all = [
    ...valueMutations(schema).map((m) => ({ path: '(body)', rule: m.rule, body: m.value })),
    ...bodyMutations(schema, body),
  ];
  return all.filter((candidate) => !validator.accepts(schema, candidate.body));
}

/**
 * Query strings the document's description refuses: an undocumented parameter (every operation,
 * but one whose description says it ignores them: the token endpoint, RFC 6749 3.2), and a
 * parameter that is not a list given twice. Each must be a 400.
 */
export function queryBreaks(
  operation: Operation,
  minimal: WireRequest,
): Array<{ wire: WireRequest; expectation: Expectation }> {
  const query = operation.parameters.filter((p) => p.in === 'query');
  if (/unknown parameters are ignored/i.test(operation.description)) return [];
  const join = (extra: string) => ({
    ...minimal,
    target: `${minimal.target}${minimal.target.includes('?') ? '&' : '?'}${extra}`,
  });
  const out: Array<{ wire: WireRequest; expectation: Expectation }> = [
    {
      wire: join('undocumentedParameter=1'),
      expectation: { kind: 'invalid-media', rule: 'an undocumented query parameter', expected: [400] },
    },
  ];
  const single = query.find((p) => !typesOf(p.schema).includes('array') && typesOf(p.schema).includes('integer'));
  if (single)
    out.push({
      wire: join(`${single.name}=1&${single.name}=1`),
      expectation: { kind: 'invalid-media', rule: `${single.name} given twice`, expected: [400] },
    });
  return out;
}

/**
 * Requests broken in their media: a body that is not JSON, a content type the operation does not
 * take, an Accept it cannot answer. Each must get the status its rule names (when documented).
 */
export function mediaBreaks(
  operation: Operation,
  valid: WireRequest,
): Array<{ wire: WireRequest; expectation: Expectation }> {
  const out: Array<{ wire: WireRequest; expectation: Expectation }> = [];
  const types = Object.keys(operation.requestBody?.content ?? {});
  if (types.length > 0) {
    const json = types.some((type) => type.includes('json'));
    if (json)
      out.push({
        wire: { ...valid, headers: { ...valid.headers, 'content-type': types[0]! }, body: '{"unterminated": ' },
        expectation: { kind: 'invalid-media', rule: 'malformed JSON', expected: [400] },
      });
    const unsupported = operation.responses['415'] ? [415] : [400];
    out.push({
      wire: { ...valid, headers: { ...valid.headers, 'content-type': 'text/plain' }, body: valid.body ?? 'x' },
      expectation: { kind: 'invalid-media', rule: 'a content type it does not take', expected: unsupported },
    });
  }
  if (operation.responses['406']) {
    out.push({
      wire: { ...valid, headers: { ...valid.headers, accept: 'image/png' } },
      expectation: { kind: 'invalid-media', rule: 'an Accept it cannot answer', expected: [406] },
    });
  }
  return out;
}
