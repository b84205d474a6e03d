import type { Warning } from '@app/core';
/** JSON Schema types the normalised schema may use. */
export type JsonSchemaType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';

/** String formats Gleaner understands (and validates with ajv-formats). */
export type JsonSchemaFormat = 'date' | 'date-time' | 'uri' | 'email';

export type JsonPrimitive = string | number | boolean | null;

/**
 * The normalised schema: a draft 2020-12 subset, self-contained (no `$ref`), every object closed
 * (`additionalProperties: false`) with an explicit `required` list.
 */
export interface JsonSchemaObject {
  type?: JsonSchemaType | JsonSchemaType[];
  title?: string;
  description?: string;
  format?: JsonSchemaFormat;
  enum?: JsonPrimitive[];
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
  items?: JsonSchemaObject;
  anyOf?: JsonSchemaObject[];
  properties?: Record<string, JsonSchemaObject>;
  required?: string[];
  additionalProperties?: false;
}

export type SchemaForm = 'shorthand' | 'fields' | 'json_schema';

export interface ParsedSchema {
  form: SchemaForm;
  /** Root is always `type: object`. */
  jsonSchema: JsonSchemaObject;
  /** Number of properties at every level (the field-count limit applies to this). */
  fieldCount: number;
  /** What parsed but deserves a look (`schema_type_misspelled`), located in the schema. */
  warnings: Warning[];
}
