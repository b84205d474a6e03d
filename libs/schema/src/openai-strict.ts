import { makeNullable } from './optional';
import type { JsonSchemaObject } from './types';

/**
 * Rewrite a normalised schema for OpenAI structured outputs (`strict: true`): every object closed
 * with all properties listed in `required` (optional ones are already nullable after
 * normalisation, and made so here if not), and keywords strict mode rejects (`minLength`,
 * `maxLength`, `format: uri`) moved into the description so the model still sees them. The reply
 * is validated against the full normalised schema, so nothing is lost.
 */
export function toOpenAiStrictSchema(schema: JsonSchemaObject): JsonSchemaObject {
  return convert(schema);
}

function convert(schema: JsonSchemaObject): JsonSchemaObject {
  const out: JsonSchemaObject = { ...schema };
  const hints: string[] = [];
  if (out.format === 'uri') {
    delete out.format;
    hints.push('a URL');
  }
  if (out.minLength !== undefined || out.maxLength !== undefined) {
    hints.push(lengthHint(out.minLength, out.maxLength));
    delete out.minLength;
    delete out.maxLength;
  }
  if (hints.length > 0) out.description = out.description ? `${out.description} (${hints.join('; ')})` : hints.join('; ');
  if (out.items) out.items = convert(out.items);
  if (out.anyOf) out.anyOf = out.anyOf.map(convert);
  if (out.properties) {
    const required = new Set(out.required ?? []);
    const properties: Record<string, JsonSchemaObject> = {};
    for (const [name, property] of Object.entries(out.properties)) {
      const converted = convert(property);
      Object.defineProperty(properties, name, {
        value: required.has(name) ? converted : makeNullable(converted),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    out.properties = properties;
    out.required = Object.keys(properties);
    out.additionalProperties = false;
  }
  return out;
}

function lengthHint(min: number | undefined, max: number | undefined): string {
  if (min !== undefined && max !== undefined) return `${min} to ${max} characters`;
  return min !== undefined ? `at least ${min} characters` : `at most ${max} characters`;
}
