export type { JsonSchemaObject, JsonSchemaType, ParsedSchema } from './types';
export { parseSchema } from './parse-schema';
export { toOpenAiStrictSchema } from './openai-strict';
export { compileValidator, type SchemaValidator } from './compile-validator';
export { SCHEMA_FROM_PROMPT, isSchemaFromPrompt } from './from-prompt';
