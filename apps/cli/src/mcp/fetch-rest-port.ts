import {
  parseAnswerBody,
  ServiceUnreachableError,
  splitLines,
  type RestAnswer,
  type RestLines,
  type RestPort,
  type RestRequest,
} from '@app/mcp';
import type { ApiClient } from '../api/api-client';

/** Headers within this time, or the service is taken as out of reach (the service bounds its own answers). */
const ANSWER_TIMEOUT_MS = 15 * 60_000;

/**
 * The MCP tools' REST port for `gleaner mcp`: real HTTP requests to GLEANER_URL with GLEANER_API_KEY,
 * any status an answer (the tools turn refusals into tool errors).
 */
export class FetchRestPort implements RestPort {
  constructor(private readonly client: ApiClient) {}

  private async fetch(request: RestRequest, signal?: AbortSignal): Promise<Response> {
    const headers = this.client.headers({ accept: 'application/json' });
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    const signals = [signal, AbortSignal.timeout(ANSWER_TIMEOUT_MS)].filter((s): s is AbortSignal => !!s);
    try {
      return await fetch(this.client.url(request.path, request.query), {
        method: request.method,
        headers,
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
        signal: AbortSignal.any(signals),
      });
    } catch (error) {
      const failure = this.client.transportError(error, signal, ANSWER_TIMEOUT_MS);
      if (signal?.aborted) throw failure;
      throw new ServiceUnreachableError(this.client.baseUrl, failure.message);
    }
  }

  async call(request: RestRequest, signal?: AbortSignal): Promise<RestAnswer> {
    const response = await this.fetch(request, signal);
    return { status: response.status, body: parseAnswerBody(await response.text()) };
  }

  async lines(request: RestRequest, signal?: AbortSignal): Promise<RestLines> {
    const response = await this.fetch(request, signal);
    if (response.status !== 200 || !response.body) {
      return { ok: false, answer: { status: response.status, body: parseAnswerBody(await response.text()) } };
    }
    const body = response.body;
    return {
      ok: true,
      lines: splitLines(body),
      close: () => void body.cancel().catch(() => undefined),
    };
  }
}
