import fc from 'fast-check';
import {
  applyRules,
  bodyBreaks,
  mediaBreaks,
  minimalDraft,
  parameterMutations,
  queryBreaks,
  toWire,
  validDraftArbitrary,
  withBrokenParameter,
  type BuildContext,
  type ContractRequest,
  type Expectation,
  type WireRequest,
} from './request-builder.js';
import { STATE_DEPENDENT_422 } from './documented-rules.js';
import { knownPathParams, seedFixtures, type Send } from './fixtures.js';
import {
  dereference,
  documentedResponse,
  operationsOf,
  type JsonSchema,
  type OpenApiDocument,
  type Operation,
} from './openapi-document.js';
import { SchemaValidator } from './schema-validator.js';
import type { HttpClient, HttpResponse } from '../http.js';

/**
 * The contract test: reads the served /openapi.json, and for every operation sends generated
 * valid requests, generated invalid ones (one parameter or body member broken), and requests
 * without or with the wrong credentials; every answer must be a documented status whose body
 * matches the documented schema (ajv). See README "Tests and benchmarks".
 */

export interface ContractOptions {
  /** Valid requests per operation. */
  runs: number;
  /** Invalid requests per operation (at most; fewer when the operation has fewer ways to be wrong). */
  invalidRuns: number;
  seed: number;
  log?: (line: string) => void;
  /**
   * The store holds no facts (PostgreSQL, until issue 38): a reporting operation's 503
   * reports_unavailable is the answer it should give, counted in `skipped` with that reason rather
   * than judged. Any other answer of it is judged as usual.
   */
  reportsUnavailable?: boolean;
}

export interface Credentials {
  http: HttpClient;
  clientId: string;
  clientSecret: string;
  /** A token with both scopes, or only the one given. */
  token(scope?: string): Promise<string>;
}

export interface Failure {
  operationId: string;
  kind: string;
  request: string;
  status: number;
  problem: string;
}

export interface ContractReport {
  seed: number;
  operations: number;
  requests: number;
  byKind: Record<string, number>;
  failures: Failure[];
  /** Status counts per operation, for seeing what the run reached. */
  statuses: Record<string, Record<number, number>>;
  /** Answers not judged, by reason and operation (see ContractOptions.reportsUnavailable). */
  skipped: Record<string, Record<string, number>>;
}

const SCOPES = ['provisioning', 'reporting'];

export async function runContract(credentials: Credentials, options: ContractOptions): Promise<ContractReport> {
  const { http } = credentials;
  const validator = new SchemaValidator();
  const documentResponse = await http.get('/openapi.json');
  if (documentResponse.status !== 200) throw new Error(`GET /openapi.json: ${documentResponse.status}`);
  const document = documentResponse.json as OpenApiDocument;
  const operations = operationsOf(document);
  const byId = new Map(operations.map((op) => [`${op.method} ${op.path}`, op]));
  const report: ContractReport = {
    seed: options.seed,
    operations: operations.length,
    requests: 0,
    byKind: {},
    failures: [],
    statuses: {},
    skipped: {},
  };

  const tokens = Object.fromEntries(
    await Promise.all(
      [undefined, ...SCOPES].map(async (scope) => [scope ?? 'all', await credentials.token(scope)] as const),
    ),
  );
  const basic = `Basic ${Buffer.from(`${encodeURIComponent(credentials.clientId)}:${encodeURIComponent(credentials.clientSecret)}`).toString('base64')}`;
  const authFor = (op: Operation): Record<string, string> => {
    if (op.security.basicAuth) return { authorization: basic };
    if (op.security.bearerAuth) return { authorization: `Bearer ${tokens.all}` };
    return {};
  };

  const exchange = async (request: ContractRequest): Promise<HttpResponse> => {
    const response = await http.request(request.wire.method, request.wire.target, {
      headers: request.wire.headers,
      ...(request.wire.body === undefined ? {} : { body: request.wire.body }),
    });
    report.requests++;
    report.byKind[request.expectation.kind] = (report.byKind[request.expectation.kind] ?? 0) + 1;
    const counts = (report.statuses[request.operation.operationId] ??= {});
    counts[response.status] = (counts[response.status] ?? 0) + 1;
    if (options.reportsUnavailable && isReportsUnavailable(request, response)) {
      const byOperation = (report.skipped['reports_unavailable: no facts in this store'] ??= {});
      byOperation[request.operation.operationId] = (byOperation[request.operation.operationId] ?? 0) + 1;
      return response;
    }
    for (const problem of checkResponse(request, response, validator)) {
      report.failures.push({
        operationId: request.operation.operationId,
        kind: request.expectation.kind,
        request: describe(request.wire),
        status: response.status,
        problem,
      });
    }
    return response;
  };

  // Fixtures go through the same checks: an answer to them must match the document too.
  const send: Send = async (method, target, body) => {
    const operation = findOperation(byId, method, target);
    const wire: WireRequest = {
      method,
      target,
      headers: {
        authorization: `Bearer ${tokens.all}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    };
    if (!operation) throw new Error(`the document has no operation for ${method} ${target}`);
    const response = await exchange({ operation, wire, expectation: { kind: 'valid' } });
    if (response.status >= 300)
      throw new Error(`fixture ${method} ${target}: ${response.status} ${response.text.slice(0, 300)}`);
    return { status: response.status, json: response.json };
  };
  await seedFixtures(send);

  // DELETEs last, so the ids the other operations use still exist while they run.
  const ordered = [
    ...operations.filter((op) => op.method !== 'DELETE'),
    ...operations.filter((op) => op.method === 'DELETE'),
  ];
  for (const [index, operation] of ordered.entries()) {
    const known = await knownPathParams(operation, operations, send);
    const ctx: BuildContext = { clientId: credentials.clientId, knownPathParams: () => known };
    const seed = options.seed + index;
    const samples = fc.sample(validDraftArbitrary(operation, ctx), { seed, numRuns: options.runs });
    for (const { draft } of samples) {
      applyRules(operation, draft, ctx);
      await exchange({ operation, wire: toWire(operation, draft, authFor(operation)), expectation: { kind: 'valid' } });
    }

    // Invalid: one break at a time on a request that is otherwise valid and minimal, on ids that
    // exist (a broken body for an unknown id may rightly be a 404 first).
    const base = (samples.find((s) => s.knownIds) ?? samples[0])?.draft;
    if (base) {
      const candidates: Array<{ wire: WireRequest; expectation: Expectation }> = parameterMutations(
        operation,
        validator,
      ).map((m) => ({
        wire: withBrokenParameter(operation, base, m, authFor(operation)),
        expectation: { kind: 'invalid-parameter', parameter: m.parameter.name, rule: m.rule },
      }));
      const media = base.contentType ? operation.requestBody?.content[base.contentType]?.schema : undefined;
      if (media && base.body !== undefined) {
        for (const broken of bodyBreaks(media, base.body, validator)) {
          const draft = { ...base, query: {}, headers: {}, body: broken.body };
          delete draft.accept;
          candidates.push({
            wire: toWire(operation, draft, authFor(operation)),
            expectation: { kind: 'invalid-body', path: broken.path, rule: broken.rule },
          });
        }
      }
      const count = Math.min(options.invalidRuns, candidates.length);
      const chosen =
        count === 0
          ? []
          : fc.sample(fc.shuffledSubarray(candidates, { minLength: count, maxLength: count }), {
              seed,
              numRuns: 1,
            })[0]!;
      for (const candidate of chosen) await exchange({ operation, ...candidate });

      const minimal = toWire(operation, minimalDraft(operation, base), authFor(operation));
      for (const broken of [...mediaBreaks(operation, minimal), ...queryBreaks(operation, minimal)])
        await exchange({ operation, ...broken });

      // Credentials: none, and (bearer routes) a token without the route's scope.
      const noAuth = toWire(operation, base, {});
      if (Object.keys(operation.security).length > 0)
        await exchange({ operation, wire: noAuth, expectation: { kind: 'security', expected: 401 } });
      const scope = operation.security.bearerAuth?.[0];
      const other = SCOPES.find((s) => s !== scope);
      if (scope && other)
        await exchange({
          operation,
          wire: toWire(operation, base, { authorization: `Bearer ${tokens[other]}` }),
          expectation: { kind: 'security', expected: 403 },
        });
    }
    options.log?.(`${operation.operationId}: ${JSON.stringify(report.statuses[operation.operationId] ?? {})}`);
  }
  // Each path with a method it does not serve: 405 with Allow naming the methods it has (the
  // document's description says so).
  const errorSchema = dereference({ $ref: '#/components/schemas/Error' }, document) as JsonSchema;
  for (const [path, item] of Object.entries(document.paths)) {
    const served = Object.keys(item)
      .filter((key) => ['get', 'put', 'post', 'delete', 'patch'].includes(key))
      .map((m) => m.toUpperCase());
    const other = ['DELETE', 'PUT', 'PATCH', 'POST'].find((m) => !served.includes(m));
    const operation = operations.find((op) => op.path === path);
    if (!other || !operation) continue;
    const target = path.replace(/\{\w+\}/g, '1');
    const response = await http.request(other, target, { headers: authFor(operation) });
    report.requests++;
    report.byKind.method = (report.byKind.method ?? 0) + 1;
    const allow = String(response.headers.allow ?? '')
      .split(',')
      .map((m) => m.trim())
      .sort();
    const problems = [
      ...(response.status === 405 ? [] : [`${other} ${path}: expected 405, got ${response.status}`]),
      ...(JSON.stringify(allow) === JSON.stringify([...served].sort())
        ? []
        : [`${other} ${path}: Allow "${String(response.headers.allow)}" is not ${served.join(', ')}`]),
      ...(other === 'DELETE'
        ? response.text === ''
          ? []
          : ['a DELETE error has a body']
        : validator.errors(errorSchema, response.json).map((e) => `405 body: ${e}`)),
    ];
    for (const problem of problems)
      report.failures.push({
        operationId: operation.operationId,
        kind: 'method',
        request: `${other} ${target}`,
        status: response.status,
        problem,
      });
  }
  return report;
}

function findOperation(byId: Map<string, Operation>, method: string, target: string): Operation | undefined {
  const path = target.split('?')[0]!;
  for (const op of byId.values()) {
    if (op.method !== method) continue;
    const pattern = new RegExp(`^${op.path.replace(/\{\w+\}/g, '[^/]+')}$`);
    if (pattern.test(path)) return op;
  }
  return undefined;
}

function describe(wire: WireRequest): string {
  const body = wire.body === undefined ? '' : ` ${wire.body.length > 300 ? `${wire.body.slice(0, 300)}…` : wire.body}`;
  return `${wire.method} ${wire.target.length > 400 ? `${wire.target.slice(0, 400)}…` : wire.target}${wire.headers['content-type'] ? ` [${wire.headers['content-type']}]` : ''}${wire.headers.accept ? ` [Accept: ${wire.headers.accept}]` : ''}${body}`;
}

const baseType = (header: string | string[] | undefined) =>
  String(header ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();

/** Everything wrong with one answer, judged by the document alone. */
export function checkResponse(request: ContractRequest, response: HttpResponse, validator: SchemaValidator): string[] {
  const problems: string[] = [];
  const { operation, expectation } = request;
  const status = response.status;
  if (status >= 500) problems.push(`server error ${status}: ${response.text.slice(0, 200)}`);
  if (!response.headers['x-request-id']) problems.push('no X-Request-Id');
  const documented = documentedResponse(operation, status);
  if (!documented) {
    problems.push(
      `status ${status} is not documented (documented: ${Object.keys(operation.responses).join(', ')}): ${response.text.slice(0, 300)}`,
    );
  } else {
    const content = documented.content;
    if (!content || Object.keys(content).length === 0) {
      if (response.text !== '')
        problems.push(`status ${status} is documented without a body, got ${response.text.slice(0, 100)}`);
    } else {
      const type = baseType(response.headers['content-type']);
      const media = content[type];
      if (!media)
        problems.push(
          `content type ${type || '(none)'} is not documented for ${status} (documented: ${Object.keys(content).join(', ')})`,
        );
      else if (type === 'application/json' && media.schema) {
        if (response.json === undefined)
          problems.push(`status ${status}: the body is not JSON: ${response.text.slice(0, 100)}`);
        else
          for (const error of validator.errors(media.schema, response.json))
            problems.push(`status ${status}: the body does not match the schema: ${error}`);
      } else if (type === 'application/x-ndjson') {
        // Each line is a row "shaped like the JSON rows": the items of the JSON page's list.
        const page = content['application/json']?.schema;
        const rows = Object.values(page?.properties ?? {}).find((p) => p.type === 'array')?.items;
        for (const [i, line] of response.text
          .split('\n')
          .filter((l) => l !== '')
          .entries()) {
          let row: unknown;
          try {
            row = JSON.parse(line);
          } catch {
            problems.push(`NDJSON line ${i + 1} is not JSON: ${line.slice(0, 100)}`);
            continue;
          }
          if (rows)
            for (const error of validator.errors(rows, row))
              problems.push(`NDJSON line ${i + 1} does not match the JSON row schema: ${error}`);
        }
      }
    }
    for (const [name, header] of Object.entries(documented.headers ?? {})) {
      const value = response.headers[name.toLowerCase()];
      if (value !== undefined && header.schema?.type === 'integer' && !/^\d+$/.test(String(value)))
        problems.push(`header ${name}: "${String(value)}" is not an integer`);
    }
  }
  switch (expectation.kind) {
    case 'valid':
      if (status === 400) problems.push(`a documented-valid request was refused: ${response.text.slice(0, 300)}`);
      else if (status === 422) {
        const allowed = STATE_DEPENDENT_422[operation.operationId] ?? [];
        const details = (
          (response.json as { error?: { details?: Array<{ code: string }> } } | undefined)?.error?.details ?? []
        ).map((d) => d.code);
        if (details.length === 0 || details.some((code) => !allowed.includes(code)))
          problems.push(`a documented-valid request was refused: ${response.text.slice(0, 300)}`);
      } else if (status === 401 || status === 403 || status === 429)
        problems.push(`a valid request with valid credentials got ${status}: ${response.text.slice(0, 200)}`);
      break;
    case 'invalid-parameter':
      if (status !== 400)
        problems.push(
          `parameter ${expectation.parameter} (${expectation.rule}) should be a 400, got ${status}: ${response.text.slice(0, 200)}`,
        );
      break;
    case 'invalid-body':
      if (status !== 400 && status !== 422)
        problems.push(
          `body member ${expectation.path} (${expectation.rule}) should be a 400 or 422, got ${status}: ${response.text.slice(0, 200)}`,
        );
      break;
    case 'invalid-media':
      if (!expectation.expected.includes(status))
        problems.push(
          `${expectation.rule} should be a ${expectation.expected.join(' or ')}, got ${status}: ${response.text.slice(0, 200)}`,
        );
      break;
    case 'security':
      if (status !== expectation.expected) problems.push(`expected ${expectation.expected}, got ${status}`);
      break;
  }
  return problems;
}

function isReportsUnavailable(request: ContractRequest, response: HttpResponse): boolean {
  return (
    request.operation.path.startsWith('/reporting/v0/') &&
    response.status === 503 &&
    ((response.json as { error?: { code?: string } } | undefined)?.error?.code === 'reports_unavailable' ||
      // A DELETE's errors carry no body: its Retry-After of an hour is reports_unavailable's alone.
      (response.text === '' && response.headers['retry-after'] === '3600'))
  );
}
