import fc from 'fast-check';
import type { JsonSchema } from './openapi-document.js';

/**
 * Values valid against a JSON Schema, for the subset the document uses: type (and type lists
 * with null), enum, const, pattern, format date / date-time, minimum / maximum, multipleOf,
 * minLength / maxLength, items / minItems / maxItems, properties / required /
 * additionalProperties / propertyNames / maxProperties, oneOf / anyOf. readOnly properties are
 * left out, as a client leaves them out of requests. Sizes stay small: the point is variety.
 */

const MAX_GENERATED_ITEMS = 4;
const MAX_EXTRA_PROPERTIES = 3;

export function typesOf(schema: JsonSchema): string[] {
  if (Array.isArray(schema.type)) return schema.type;
  if (typeof schema.type === 'string') return [schema.type];
  if (schema.properties || schema.additionalProperties !== undefined) return ['object'];
  if (schema.items) return ['array'];
  return [];
}

export function valueArbitrary(schema: JsonSchema): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const branches = schema.oneOf ?? schema.anyOf;
  if (branches) return fc.oneof(...branches.map((branch) => valueArbitrary({ ...withoutBranches(schema), ...branch })));
  const types = typesOf(schema);
  if (types.length === 0) return fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.boolean());
  const arbitraries = types.map((type) => typedArbitrary(type, schema));
  // null is one choice among several: most values should exercise the typed branch.
  return arbitraries.length === 1
    ? arbitraries[0]!
    : fc.oneof(...types.map((type, i) => ({ weight: type === 'null' ? 1 : 3, arbitrary: arbitraries[i]! })));
}

function withoutBranches(schema: JsonSchema): JsonSchema {
  const { oneOf: _o, anyOf: _a, ...rest } = schema;
  return rest;
}

function typedArbitrary(type: string, schema: JsonSchema): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return integerArbitrary(schema);
    case 'number':
      return numberArbitrary(schema);
    case 'string':
      return stringArbitrary(schema);
    case 'array':
      return arrayArbitrary(schema);
    case 'object':
      return objectArbitrary(schema);
    default:
      throw new Error(`unsupported type ${type}`);
  }
}

function integerArbitrary(schema: JsonSchema): fc.Arbitrary<number> {
  const min = Math.max(
    schema.minimum ?? Number.MIN_SAFE_INTEGER,
    (schema.exclusiveMinimum ?? Number.MIN_SAFE_INTEGER - 1) + 1,
  );
  const max = Math.min(
    schema.maximum ?? Number.MAX_SAFE_INTEGER,
    (schema.exclusiveMaximum ?? Number.MAX_SAFE_INTEGER + 1) - 1,
  );
  // fast-check biases towards small values and the bounds; keep a share of plainly small ones.
  return fc.oneof(
    {
      weight: 3,
      arbitrary: fc.integer({ min: Math.max(min, Math.min(max, 0)), max: Math.min(max, Math.max(min, 1000)) }),
    },
    { weight: 1, arbitrary: fc.integer({ min, max }) },
  );
}

function numberArbitrary(schema: JsonSchema): fc.Arbitrary<number> {
  const min = schema.minimum ?? -1e12;
  const max = schema.maximum ?? 1e12;
  if (schema.multipleOf !== undefined) {
    const step = schema.multipleOf;
    const decimals = Math.max(0, Math.ceil(-Math.log10(step)));
    return fc
      .integer({ min: Math.ceil(min / step), max: Math.floor(max / step) })
      .map((k) => Number((k * step).toFixed(decimals)));
  }
  return fc.oneof(
    fc.integer({ min: Math.ceil(Math.max(min, -1e6)), max: Math.floor(Math.min(max, 1e6)) }),
    fc.double({ min, max, noNaN: true, noDefaultInfinity: true }),
  );
}

const DAY_MS = 86_400_000;
const FROM = Date.UTC(1990, 0, 1);
const TO = Date.UTC(2100, 0, 1);

function stringArbitrary(schema: JsonSchema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = schema.maxLength;
  const fits = (s: string) => [...s].length >= minLength && (maxLength === undefined || [...s].length <= maxLength);
  if (schema.format === 'date')
    return fc
      .integer({ min: FROM / DAY_MS, max: TO / DAY_MS })
      .map((day) => new Date(day * DAY_MS).toISOString().slice(0, 10));
  if (schema.format === 'date-time') return fc.integer({ min: FROM, max: TO }).map((ms) => new Date(ms).toISOString());
  if (schema.pattern !== undefined) {
    const regex = new RegExp(schema.pattern, 'u');
    const matching = fc.stringMatching(regex, maxLength === undefined ? {} : { maxLength }).filter(fits);
    // The longest allowed value too, where the pattern lets one unit repeat (names: \S).
    const longest =
      maxLength !== undefined && maxLength <= 10_000
        ? ['😀', 'é', 'a'].filter((unit) => regex.test(unit.repeat(maxLength)))
        : [];
    return longest.length === 0
      ? matching
      : fc.oneof(
          { weight: 5, arbitrary: matching },
          { weight: 1, arbitrary: fc.constantFrom(...longest).map((unit) => unit.repeat(maxLength!)) },
        );
  }
  const cap = Math.min(maxLength ?? 40, Math.max(minLength, 40));
  return fc.oneof(
    { weight: 4, arbitrary: fc.string({ minLength, maxLength: cap, unit: 'grapheme-ascii' }) },
    { weight: 1, arbitrary: fc.string({ minLength, maxLength: cap, unit: 'grapheme-composite' }) },
    // The longest allowed value: where "at most N characters" and the service's count must agree.
    ...(maxLength !== undefined && maxLength <= 10_000
      ? [
          {
            weight: 1,
            arbitrary: fc.string({ minLength: maxLength, maxLength, unit: fc.constantFrom('a', 'é', '€', '😀') }),
          },
        ]
      : []),
  );
}

function arrayArbitrary(schema: JsonSchema): fc.Arbitrary<unknown[]> {
  const minLength = schema.minItems ?? 0;
  const maxLength = Math.max(minLength, Math.min(schema.maxItems ?? MAX_GENERATED_ITEMS, MAX_GENERATED_ITEMS));
  const items = valueArbitrary(schema.items ?? {});
  return schema.uniqueItems === true
    ? fc.uniqueArray(items, { minLength, maxLength, comparator: 'SameValueZero' })
    : fc.array(items, { minLength, maxLength });
}

function objectArbitrary(schema: JsonSchema): fc.Arbitrary<Record<string, unknown>> {
  const required = new Set(schema.required ?? []);
  // Left out: response-only members, and members no value satisfies (`not: {}`: must not be sent).
  const properties = Object.entries(schema.properties ?? {}).filter(
    ([, property]) =>
      property.readOnly !== true && !(property.not !== undefined && Object.keys(property.not).length === 0),
  );
  const record = fc.record(Object.fromEntries(properties.map(([name, property]) => [name, valueArbitrary(property)])), {
    requiredKeys: properties.map(([name]) => name).filter((name) => required.has(name)),
  });
  const extra = schema.additionalProperties;
  if (extra === undefined || typeof extra === 'boolean') return record;
  const limit = Math.min(MAX_EXTRA_PROPERTIES, schema.maxProperties ?? MAX_EXTRA_PROPERTIES);
  const names = propertyNameArbitrary(schema.propertyNames ?? {}).filter(
    (name) => !(schema.properties && name in schema.properties),
  );
  const extras = fc.uniqueArray(fc.tuple(names, valueArbitrary(extra)), {
    maxLength: limit,
    selector: ([name]) => name,
  });
  return fc.tuple(record, extras).map(([fixed, pairs]) => {
    // defineProperty semantics: a generated name such as __proto__ is a member, not a prototype.
    const out: Record<string, unknown> = { ...fixed };
    for (const [name, value] of pairs)
      Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
    return out;
  });
}

function propertyNameArbitrary(schema: JsonSchema): fc.Arbitrary<string> {
  const base =
    schema.pattern === undefined
      ? fc.string({ minLength: 1, maxLength: 12 })
      : fc.stringMatching(new RegExp(schema.pattern, 'u'));
  const not = schema.not?.pattern;
  return not === undefined ? base : base.filter((name) => !new RegExp(not, 'u').test(name));
}
