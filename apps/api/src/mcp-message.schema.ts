/**
 * What POST /mcp takes, for the OpenAPI document: one JSON-RPC 2.0 message as the MCP SDK's transport
 * accepts it (its JSONRPCMessageSchema: a request, a notification, a result or an error; strict
 * objects, ids a string or an integer), and an Accept header naming both answer types. Written out
 * here because it is the protocol's shape, not a DTO of this API.
 */
import type { OpenAPIObject } from '@nestjs/swagger';

type SchemaObject = NonNullable<NonNullable<OpenAPIObject['components']>['schemas']>[string];

const ID: SchemaObject = { anyOf: [{ type: 'string' }, { type: 'integer' }] };
// `const` is JSON Schema 2020-12 (OpenAPI 3.1); the swagger typings predate it.
const JSONRPC = { const: '2.0' } as SchemaObject;
const META: SchemaObject = { type: 'object', properties: { progressToken: ID }, additionalProperties: true };
const PARAMS: SchemaObject = { type: 'object', properties: { _meta: META }, additionalProperties: true };

export const MCP_MESSAGE_SCHEMA: SchemaObject = {
  description: 'A JSON-RPC 2.0 message (MCP): a request, a notification, or a response to a request of the server.',
  anyOf: [
    {
      title: 'Request',
      type: 'object',
      required: ['jsonrpc', 'id', 'method'],
      properties: { jsonrpc: JSONRPC, id: ID, method: { type: 'string' }, params: PARAMS },
      additionalProperties: false,
    },
    {
      title: 'Notification',
      type: 'object',
      required: ['jsonrpc', 'method'],
      properties: { jsonrpc: JSONRPC, method: { type: 'string' }, params: PARAMS },
      additionalProperties: false,
    },
    {
      title: 'Result',
      type: 'object',
      required: ['jsonrpc', 'id', 'result'],
      properties: { jsonrpc: JSONRPC, id: ID, result: PARAMS },
      additionalProperties: false,
    },
    {
      title: 'Error',
      type: 'object',
      required: ['jsonrpc', 'error'],
      properties: {
        jsonrpc: JSONRPC,
        id: ID,
        error: {
          type: 'object',
          required: ['code', 'message'],
          properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} },
          additionalProperties: true,
        },
      },
      additionalProperties: false,
    },
  ],
};

/** The transport answers only a client that takes both JSON and SSE (it checks that the header contains each). */
export const MCP_ACCEPT_SCHEMA: SchemaObject = {
  type: 'string',
  allOf: [{ pattern: 'application/json' }, { pattern: 'text/event-stream' }],
};
