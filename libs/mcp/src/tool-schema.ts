import { dtoJsonSchema, type JsonSchema } from '@app/http';
import type { ToolDefinition } from './tools';

/**
 * A tool's input schema: its REST body's DTO and its own arguments' DTO, each through the mapping the
 * OpenAPI document uses (libs/http dto-json-schema.ts), merged into one object. A name in both would
 * be ambiguous: refused when the tools are built.
 */
export function toolInputSchema(tool: Pick<ToolDefinition, 'name' | 'body' | 'args'>): JsonSchema {
  const own = dtoJsonSchema(tool.args);
  const body = tool.body ? dtoJsonSchema(tool.body) : { properties: {} };
  const properties: Record<string, JsonSchema> = { ...(body.properties as Record<string, JsonSchema>) };
  for (const [name, schema] of Object.entries(own.properties as Record<string, JsonSchema>)) {
    if (properties[name]) throw new Error(`Tool ${tool.name}: argument "${name}" is also a field of its REST body`);
    properties[name] = schema;
  }
  const required = [...((body.required as string[] | undefined) ?? []), ...((own.required as string[] | undefined) ?? [])];
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false };
}
