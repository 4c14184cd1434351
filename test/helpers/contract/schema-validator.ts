import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { JsonSchema } from './openapi-document.js';

/**
 * JSON Schema 2020-12 (the dialect of OpenAPI 3.1) by ajv with ajv-formats: a validator nobody
 * here wrote decides whether a response matches its documented schema, and whether a value the
 * mutators made is really invalid.
 */
export class SchemaValidator {
  private readonly ajv: Ajv2020;
  private readonly compiled = new WeakMap<JsonSchema, ValidateFunction>();

  constructor() {
    // strict: false lets OpenAPI's annotation keywords (example, discriminator, xml) through.
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    (addFormats as unknown as (ajv: Ajv2020) => void)(this.ajv);
  }

  private validator(schema: JsonSchema): ValidateFunction {
    let validate = this.compiled.get(schema);
    if (!validate) {
      validate = this.ajv.compile(schema);
      this.compiled.set(schema, validate);
    }
    return validate;
  }

  accepts(schema: JsonSchema, value: unknown): boolean {
    return this.validator(schema)(value) === true;
  }

  /** The errors of `value`, as short "path: message" lines (empty when it is valid). */
  errors(schema: JsonSchema, value: unknown): string[] {
    const validate = this.validator(schema);
    if (validate(value)) return [];
    return (validate.errors ?? [])
      .slice(0, 5)
      .map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
  }
}
