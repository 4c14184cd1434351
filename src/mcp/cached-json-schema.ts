/**
 * A zod schema whose JSON Schema is computed once. The SDK converts every tool's input and output
 * schema again for each tools/list and tools/call (one server per request: nothing survives to the
 * next), ~5 ms of a tools/list's 7.5 (bench/mcp.ts); the schemas are constants, so their JSON
 * Schema is too.
 */
export function withCachedJsonSchema<S extends object>(schema: S): S {
  const standard = (schema as { '~standard': StandardWithJson })['~standard'];
  const cache = new Map<string, unknown>();
  const memo =
    (io: 'input' | 'output') =>
    (options: { target: string }): unknown => {
      const key = `${io} ${options.target}`;
      if (!cache.has(key)) cache.set(key, standard.jsonSchema[io](options));
      return cache.get(key);
    };
  const cached: StandardWithJson = {
    version: standard.version,
    vendor: standard.vendor,
    validate: (value: unknown) => standard.validate(value),
    jsonSchema: { input: memo('input'), output: memo('output') },
  };
  return new Proxy(schema, {
    get: (target, property, receiver) => (property === '~standard' ? cached : Reflect.get(target, property, receiver)),
  });
}

interface StandardWithJson {
  readonly version: number;
  readonly vendor: string;
  validate(value: unknown): unknown;
  readonly jsonSchema: {
    input(options: { target: string }): unknown;
    output(options: { target: string }): unknown;
  };
}
