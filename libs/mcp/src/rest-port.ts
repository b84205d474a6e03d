/**
 * How the MCP tools reach Gleaner: its REST routes, as the caller. The HTTP transport (/mcp) answers
 * them in-process with Fastify's inject and the caller's key; `gleaner mcp` (stdio) over HTTP with
 * GLEANER_API_KEY. Scopes, rate limits, tenant isolation, validation and problem details are the
 * routes' own: the tools add none of their own.
 */
export interface RestRequest {
  method: 'GET' | 'POST';
  /** The path under the service root, e.g. `/api/v1/jobs/01J...`. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  /** A JSON body. */
  body?: unknown;
}

export interface RestAnswer {
  status: number;
  /** The parsed JSON body (a problem+json object for a refusal), or the text when it is not JSON. */
  body: unknown;
}

/** A streamed answer: its lines as they arrive (JSON lines), or the answer of a refusal. */
export type RestLines = { ok: true; lines: AsyncIterable<string>; close(): void } | { ok: false; answer: RestAnswer };

export interface RestPort {
  /** One call; any HTTP status is an answer. Throws only when the service cannot be reached. */
  call(request: RestRequest, signal?: AbortSignal): Promise<RestAnswer>;
  /** A JSON-lines answer read only as far as the caller iterates (`close` ends it early). */
  lines(request: RestRequest, signal?: AbortSignal): Promise<RestLines>;
}

/** Splits a stream of text chunks into lines (without their line breaks; blank lines skipped). */
export async function* splitLines(chunks: AsyncIterable<Buffer | string | Uint8Array>): AsyncIterable<string> {
  const decoder = new TextDecoder();
  let rest = '';
  for await (const chunk of chunks) {
    rest += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    let at: number;
    while ((at = rest.indexOf('\n')) >= 0) {
      const line = rest.slice(0, at).replace(/\r$/, '');
      rest = rest.slice(at + 1);
      if (line.trim()) yield line;
    }
  }
  rest += decoder.decode();
  if (rest.trim()) yield rest;
}

/** Parses an answer's text: JSON when it is, else the text itself. */
export function parseAnswerBody(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
