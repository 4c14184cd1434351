import dns from 'node:dns';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATE_DEPENDENT_422, type Draft } from '../helpers/contract/documented-rules.js';
import { knownPathParams, seedFixtures, type Send } from '../helpers/contract/fixtures.js';
import {
  documentedResponse,
  operationsOf,
  type JsonSchema,
  type OpenApiDocument,
  type Operation,
} from '../helpers/contract/openapi-document.js';
import { applyRules, minimalDraft, toWire, validDraftArbitrary } from '../helpers/contract/request-builder.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Every example of the served OpenAPI document, sent to the running service (issue 36 item 6:
 * the document's own `since` cursor and webhook URL failed when sent). A client copies examples;
 * an example that the service refuses teaches the wrong request.
 *
 * One request per parameter example (`schema.example`, `examples`), and one per operation with
 * all its request-body examples in place (they describe one body). Around the example the request
 * is valid and minimal: required query and header parameters from their own examples (examples
 * are meant to be used together, e.g. startDate and endDate), else from the contract test's valid
 * generator; path ids that exist in the fixture (seedFixtures) unless the example is the path id.
 *
 * The rule: an example passes when the answer is 2xx or 304, or a status that depends on what the
 * service holds rather than on the example's form, and the operation documents it: 404 for an
 * example path id the fixture does not have (or an operation whose resources the fixture does not
 * make), 409 (a report job not finished yet), 412, 416 (a range past a file), and the 422s the
 * contract lists as state-dependent (STATE_DEPENDENT_422; a webhook host that does not resolve
 * only on a machine without DNS). Any other 4xx (400, 413, 415, another
 * 422) says the example itself is wrong, and so does 410: an example is fixed text, so a cursor
 * example that is too old is too old for every reader. A 5xx is a failure anyway.
 */

interface Example {
  readonly operation: Operation;
  readonly label: string;
  /** Sets the example into a valid minimal draft. */
  apply(draft: Draft): void;
  readonly pathParameter: boolean;
}

const STATE_STATUSES = new Set([404, 409, 412, 416]);

let server: TestServer;
let document: OpenApiDocument;
let auth: Record<string, string>;
let clientId: string;
let known: Map<string, ReadonlyArray<Record<string, string>>>;
/** Whether this machine resolves names at all (IANA's example.com resolves wherever DNS does). */
let dnsWorks: boolean;

beforeAll(async () => {
  dnsWorks = await dns.promises.lookup('example.com').then(
    () => true,
    () => false,
  );
  // Every example of every operation in one go outruns the default bucket on a quick machine.
  server = await startTestServer({ rateLimit: { ratePerSecond: 10_000, burst: 10_000 } });
  clientId = server.clientId;
  auth = { authorization: `Bearer ${await server.token()}` };
  const send: Send = async (method, target, body) => {
    const res = await server.http.request(method, target, {
      headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (res.status >= 300) throw new Error(`fixture ${method} ${target}: ${res.status} ${res.text.slice(0, 300)}`);
    return { status: res.status, json: res.json };
  };
  await seedFixtures(send);
  document = (await server.http.get('/openapi.json')).json as OpenApiDocument;
  const operations = operationsOf(document);
  known = new Map();
  for (const operation of operations) known.set(operation.path, await knownPathParams(operation, operations, send));
}, 120_000);
afterAll(() => server.close());

/** `example` and `examples` of a schema or parameter, as values. */
function valuesOf(holder: { example?: unknown; examples?: unknown }): unknown[] {
  const values: unknown[] = [];
  if (holder.example !== undefined) values.push(holder.example);
  if (Array.isArray(holder.examples)) values.push(...holder.examples);
  else if (holder.examples && typeof holder.examples === 'object')
    values.push(...Object.values(holder.examples as Record<string, { value: unknown }>).map((e) => e.value));
  return values;
}

/** The examples inside a body schema, by member path (the body's own example at []). */
function bodyExamples(schema: JsonSchema, at: string[] = []): Array<{ path: string[]; value: unknown }> {
  const found = valuesOf(schema)
    .slice(0, 1)
    .map((value) => ({ path: at, value }));
  for (const [name, member] of Object.entries(schema.properties ?? {}))
    found.push(...bodyExamples(member, [...at, name]));
  return found;
}

function setAt(target: unknown, path: string[], value: unknown): unknown {
  if (path.length === 0) return structuredClone(value);
  const object = (target !== null && typeof target === 'object' ? target : {}) as Record<string, unknown>;
  object[path[0]!] = setAt(object[path[0]!], path.slice(1), value);
  return object;
}

function examplesOf(operation: Operation): Example[] {
  const examples: Example[] = [];
  for (const parameter of operation.parameters) {
    const values = [...valuesOf(parameter.schema ?? {}), ...valuesOf(parameter)];
    for (const [i, value] of values.entries()) {
      examples.push({
        operation,
        label: `${parameter.in} ${parameter.name} #${i + 1} ${JSON.stringify(value)}`,
        pathParameter: parameter.in === 'path',
        apply(draft) {
          if (parameter.in === 'path') draft.pathParams[parameter.name] = value;
          else if (parameter.in === 'query') draft.query[parameter.name] = value;
          else if (parameter.in === 'header') draft.headers[parameter.name] = String(value);
        },
      });
    }
  }
  const media = operation.requestBody?.content['application/json']?.schema;
  const inBody = media ? bodyExamples(media) : [];
  if (inBody.length > 0) {
    examples.push({
      operation,
      label: `body ${inBody.map((e) => `${e.path.join('.')}=${JSON.stringify(e.value)}`).join(' ')}`,
      pathParameter: false,
      apply(draft) {
        for (const { path, value } of inBody) draft.body = setAt(draft.body, path, value);
      },
    });
  }
  return examples;
}

/** A valid minimal request of the operation, on ids the fixture holds, required parameters from their examples. */
function baseDraft(operation: Operation): { draft: Draft; knownIds: boolean } {
  const ids = known.get(operation.path) ?? [];
  const ctx = { clientId, knownPathParams: () => ids };
  const samples = fc.sample(validDraftArbitrary(operation, ctx), { seed: 36, numRuns: 30 });
  const sample = samples.find((s) => s.knownIds) ?? samples[0]!;
  const draft = minimalDraft(operation, structuredClone(sample.draft));
  for (const parameter of operation.parameters) {
    if (!parameter.required || parameter.in === 'path') continue;
    const [value] = [...valuesOf(parameter.schema ?? {}), ...valuesOf(parameter)];
    if (value === undefined) continue;
    if (parameter.in === 'query') draft.query[parameter.name] = value;
    else if (parameter.in === 'header') draft.headers[parameter.name] = String(value);
  }
  applyRules(operation, draft, ctx);
  return { draft, knownIds: sample.knownIds };
}

function passes(example: Example, knownIds: boolean, status: number, json: any): string | undefined {
  const { operation } = example;
  if (status >= 200 && status < 300) return undefined;
  if (status === 304) return undefined;
  const documented = documentedResponse(operation, status) !== undefined;
  if (STATE_STATUSES.has(status) && documented && (status !== 404 || example.pathParameter || !knownIds))
    return undefined;
  if (status === 422 && documented) {
    const allowed = STATE_DEPENDENT_422[operation.operationId] ?? [];
    const codes = ((json?.error?.details ?? []) as Array<{ code: string }>).map((d) => d.code);
    // host_not_found depends on DNS only where there is none: with a resolver, the example's host
    // does not exist (etl.example.com, as the document had it).
    const stateDependent = allowed.filter((code) => code !== 'host_not_found' || !dnsWorks);
    if (codes.length > 0 && codes.every((code) => stateDependent.includes(code))) return undefined;
  }
  return `answered ${status}: ${JSON.stringify(json ?? null).slice(0, 400)}`;
}

describe('every example of the OpenAPI document, sent', () => {
  it('has examples to send (the document is read)', () => {
    const all = operationsOf(document).flatMap(examplesOf);
    expect(all.length).toBeGreaterThan(50);
    // The two that failed when the issue was filed are among them.
    expect(all.some((e) => e.operation.path.endsWith('/webhooks') && e.label.startsWith('body'))).toBe(true);
  });

  it('passes every example: 2xx, or a documented status that depends on state, never a refusal of its form', async () => {
    const operations = operationsOf(document);
    // DELETEs last, so the ids the other examples use still exist while they run.
    const ordered = [
      ...operations.filter((o) => o.method !== 'DELETE'),
      ...operations.filter((o) => o.method === 'DELETE'),
    ];
    const failures: string[] = [];
    let sent = 0;
    const deleted = new Set<string>();
    for (const operation of ordered) {
      for (const example of examplesOf(operation)) {
        const { draft, knownIds } = baseDraft(operation);
        example.apply(draft);
        const wire = toWire(operation, draft, auth);
        const res = await server.http.request(wire.method, wire.target, {
          headers: wire.headers,
          ...(wire.body === undefined ? {} : { body: wire.body }),
        });
        sent++;
        // A DELETE example sent after another one removed the same resource finds it gone: that 404 is state.
        const gone = operation.method === 'DELETE' && res.status === 404 && deleted.has(wire.target);
        if (operation.method === 'DELETE' && res.status >= 200 && res.status < 300) deleted.add(wire.target);
        const problem = gone ? undefined : passes(example, knownIds, res.status, res.json);
        if (problem)
          failures.push(`${operation.method} ${operation.path} (${example.label}) -> ${wire.target}: ${problem}`);
      }
    }
    expect(sent).toBeGreaterThan(50);
    expect(failures).toEqual([]);
  }, 300_000);
});
