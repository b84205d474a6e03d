export { createMcpServer, listTools, ServiceUnreachableError, type McpServerOptions } from './mcp-server';
export { parseAnswerBody, splitLines, type RestAnswer, type RestLines, type RestPort, type RestRequest } from './rest-port';
export { TOOLS, type ToolDefinition } from './tools';
export { toolInputSchema } from './tool-schema';
