import type { FastifyInstance } from 'fastify';
import { parseAnswerBody, splitLines, type RestAnswer, type RestLines, type RestPort, type RestRequest } from '@app/mcp';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,120}$/;

/**
 * The MCP tools' REST port on the HTTP transport: each call is an in-process request (Fastify inject)
 * with the /mcp caller's Authorization header, so the route authenticates, rate-limits, scopes and
 * validates it exactly as over the network. Request ids are the /mcp request's, numbered.
 */
export class InjectRestPort implements RestPort {
  private calls = 0;

  constructor(
    private readonly fastify: FastifyInstance,
    private readonly authorization: string | undefined,
    private readonly requestId: string,
  ) {}

  private options(request: RestRequest) {
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'gleaner-mcp' };
    if (this.authorization) headers.authorization = this.authorization;
    if (REQUEST_ID.test(this.requestId)) headers['x-request-id'] = `${this.requestId}.${++this.calls}`;
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    const query = Object.fromEntries(
      Object.entries(request.query ?? {})
        .filter(([, value]) => value !== undefined)
        .map(([name, value]) => [name, String(value)]),
    );
    return {
      method: request.method,
      url: request.path,
      query,
      headers,
      ...(request.body === undefined ? {} : { payload: JSON.stringify(request.body) }),
    };
  }

  async call(request: RestRequest): Promise<RestAnswer> {
    const response = await this.fastify.inject(this.options(request));
    return { status: response.statusCode, body: parseAnswerBody(response.body) };
  }

  async lines(request: RestRequest): Promise<RestLines> {
    const response = await this.fastify.inject({ ...this.options(request), payloadAsStream: true });
    const stream = response.stream();
    if (response.statusCode !== 200) {
      const chunks: Buffer[] = [];
      for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
      return { ok: false, answer: { status: response.statusCode, body: parseAnswerBody(Buffer.concat(chunks).toString('utf8')) } };
    }
    return { ok: true, lines: splitLines(stream), close: () => stream.destroy() };
  }
}
