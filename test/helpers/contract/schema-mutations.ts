import type { JsonSchema } from './openapi-document.js';
import { typesOf } from './schema-arbitrary.js';

/**
 * Values a schema refuses: one rule broken at a time (wrong type, out of range, unknown enum
 * value, pattern, length, format, item count, missing required member, unknown member). Callers
 * keep only candidates a real validator (ajv) also refuses, so a candidate that happens to be
 * valid is never sent as an invalid request.
 */
export interface Mutation {
  readonly rule: string;
  readonly value: unknown;
}

const NOT_IN_ENUM = 'NOT_A_DOCUMENTED_VALUE';

/** A string that fails `pattern`, from a few shapes that break most patterns. */
function failingString(pattern: string, maxLength: number | undefined): string | undefined {
  const regex = new RegExp(pattern, 'u');
  const candidates = ['', ' ', '!', '-', 'x', 'x'.repeat(70), '0', 'a:b,c', 'A B', '\t', '%'];
  return candidates.find(
    (candidate) => !regex.test(candidate) && (maxLength === undefined || candidate.length <= maxLength),
  );
}

/** Mutations of one value (a parameter value or a body member) of `schema`. */
export function valueMutations(schema: JsonSchema): Mutation[] {
  const types = typesOf(schema);
  const out: Mutation[] = [];
  const wrongType = (rule: string, value: unknown) => out.push({ rule: `wrong type: ${rule}`, value });
  if (!types.includes('string')) wrongType('a string', 'text');
  if (!types.includes('number') && !types.includes('integer')) wrongType('a number', 12345);
  if (!types.includes('boolean')) wrongType('a boolean', true);
  if (!types.includes('object')) wrongType('an object', { unexpected: 1 });
  if (!types.includes('array')) wrongType('an array', ['x']);
  if (!types.includes('null')) wrongType('null', null);
  if (types.includes('integer')) out.push({ rule: 'not an integer', value: 1.5 });
  if (schema.enum)
    out.push({ rule: 'unknown enum value', value: typeof schema.enum[0] === 'number' ? -987654 : NOT_IN_ENUM });
  if (schema.const !== undefined) out.push({ rule: 'not the constant', value: `${String(schema.const)}_other` });
  if (schema.minimum !== undefined)
    out.push({ rule: 'below minimum', value: schema.minimum - (types.includes('integer') ? 1 : 0.5) });
  if (schema.maximum !== undefined)
    out.push({ rule: 'above maximum', value: schema.maximum + (types.includes('integer') ? 1 : 0.5) });
  if (schema.multipleOf !== undefined)
    out.push({ rule: 'not a multiple', value: (schema.minimum ?? 0) + schema.multipleOf / 3 });
  if (schema.maxLength !== undefined) out.push({ rule: 'too long', value: 'a'.repeat(schema.maxLength + 1) });
  if (schema.minLength !== undefined && schema.minLength > 0)
    out.push({ rule: 'too short', value: 'a'.repeat(schema.minLength - 1) });
  if (schema.pattern !== undefined) {
    const value = failingString(schema.pattern, schema.maxLength);
    if (value !== undefined) out.push({ rule: `not matching ${schema.pattern}`, value });
  }
  if (schema.format === 'date')
    out.push({ rule: 'not a calendar day', value: '2026-02-30' }, { rule: 'not a date', value: '31.01.2026' });
  if (schema.format === 'date-time') out.push({ rule: 'not a date-time', value: 'yesterday' });
  if (types.includes('array') && schema.items) {
    const item = valueMutations(schema.items).find((m) => !m.rule.startsWith('wrong type: an array'));
    if (item) out.push({ rule: `an item: ${item.rule}`, value: [item.value] });
    if (schema.maxItems !== undefined)
      out.push({
        rule: 'too many items',
        value: Array.from({ length: schema.maxItems + 1 }, (_, i) => sampleItem(schema.items!, i)),
      });
    if (schema.minItems !== undefined && schema.minItems > 0) out.push({ rule: 'too few items', value: [] });
  }
  if (types.includes('object')) {
    if (schema.maxProperties !== undefined) {
      out.push({
        rule: 'too many members',
        value: Object.fromEntries(
          Array.from({ length: schema.maxProperties + 1 }, (_, i) => [`name${i}`, sampleItem(additional(schema), i)]),
        ),
      });
    }
    if (schema.propertyNames?.pattern !== undefined) {
      const name = failingString(schema.propertyNames.pattern, undefined);
      if (name !== undefined)
        out.push({
          rule: 'a member name not matching its pattern',
          value: { [name]: sampleItem(additional(schema), 0) },
        });
    }
  }
  return out;
}

function additional(schema: JsonSchema): JsonSchema {
  return typeof schema.additionalProperties === 'object' ? schema.additionalProperties : {};
}

/** A plain valid-looking value of `schema`, distinct per index (for item counts). */
function sampleItem(schema: JsonSchema, index: number): unknown {
  if (schema.enum) return schema.enum[index % schema.enum.length];
  const types = typesOf(schema);
  if (types.includes('integer') || types.includes('number')) return Math.max(schema.minimum ?? 1, 1) + index;
  if (types.includes('string')) {
    if (schema.pattern === undefined) return `v${index}`;
    const regex = new RegExp(schema.pattern, 'u');
    return [`a${index}`, `a${index}:x`, `A${index}`].find((s) => regex.test(s)) ?? `a${index}`;
  }
  if (types.includes('boolean')) return true;
  return `v${index}`;
}

export interface BodyMutation {
  readonly path: string;
  readonly rule: string;
  readonly body: unknown;
}

/** Every single-rule mutation of a valid body: each member at each depth, plus missing and unknown members. */
export function bodyMutations(schema: JsonSchema, body: unknown, path = ''): BodyMutation[] {
  const out: BodyMutation[] = [];
  const types = typesOf(schema);
  if (types.includes('object') && body !== null && typeof body === 'object' && !Array.isArray(body)) {
    const object = body as Record<string, unknown>;
    for (const name of schema.required ?? []) {
      const { [name]: _removed, ...rest } = object;
      out.push({ path: join(path, name), rule: 'missing required member', body: rest });
    }
    if (schema.additionalProperties === false)
      out.push({ path: join(path, 'unknownMember'), rule: 'unknown member', body: { ...object, unknownMember: 1 } });
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      if (property.readOnly === true) {
        out.push({ path: join(path, name), rule: 'read-only member sent', body: { ...object, [name]: 1 } });
        continue;
      }
      for (const m of valueMutations(property))
        out.push({ path: join(path, name), rule: m.rule, body: { ...object, [name]: m.value } });
      if (name in object) {
        for (const inner of bodyMutations(property, object[name], join(path, name)))
          out.push({ ...inner, body: { ...object, [name]: inner.body } });
      }
    }
  }
  if (types.includes('array') && Array.isArray(body) && body.length > 0 && schema.items) {
    for (const inner of bodyMutations(schema.items, body[0], `${path}[0]`))
      out.push({ ...inner, body: [inner.body, ...body.slice(1)] });
  }
  return out;
}

function join(path: string, name: string): string {
  return path === '' ? name : `${path}.${name}`;
}
