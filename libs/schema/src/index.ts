export type { JsonPrimitive, JsonSchemaFormat, JsonSchemaObject, JsonSchemaType, ParsedSchema, SchemaForm } from './types';
export { SCHEMA_LIMITS } from './limits';
export { TYPE_NAMES, type TypeName } from './type-names';
export { parseSchema, isSchemaError } from './parse-schema';
export { detectSchemaForm } from './detect-form';
export { toOpenAiStrictSchema } from './openai-strict';
export { schemaToYaml } from './schema-to-yaml';
export { compileValidator, type SchemaValidator, type ValidationIssue } from './compile-validator';
