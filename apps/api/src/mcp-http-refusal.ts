import { AppError, Errors } from '@app/core';

/**
 * The MCP SDK's transport refuses some requests itself, with a JSON-RPC error body (a missing Accept,
 * an unsupported protocol version, a body that is not a JSON-RPC message). The API answers every
 * refusal as problem+json (docs/api.md "Statuses"), so they become AppErrors with the SDK's message;
 * MCP clients only read the status of a refused POST. JSON-RPC errors inside a 200 answer (an unknown
 * tool, bad params) stay JSON-RPC errors.
 */
export async function sdkRefusal(response: Response): Promise<AppError> {
  const text = await response.text().catch(() => '');
  let message = text.slice(0, 300);
  let code: number | undefined;
  try {
    const body = JSON.parse(text) as { error?: { message?: string; code?: number } };
    message = body.error?.message ?? message;
    code = body.error?.code;
  } catch {
    // Not JSON: the text itself.
  }
  switch (response.status) {
    case 400:
      // A JSON body that is not a JSON-RPC message (or too many in a batch): invalid fields, as the API calls them.
      if (code === -32700 || code === -32600)
        return Errors.validation([{ location: 'body', message }], 'The body is not a valid MCP (JSON-RPC 2.0) message.');
      return new AppError('bad-request', message);
    case 406:
      return new AppError('not-acceptable', `${message} (send Accept: application/json, text/event-stream).`);
    case 413:
      return new AppError('payload-too-large', message);
    case 415:
      return new AppError('unsupported-media-type', message);
    default:
      return Errors.internal(`MCP transport answered ${response.status}: ${message}`);
  }
}
