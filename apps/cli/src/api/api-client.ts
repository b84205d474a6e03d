import { ApiError, InterruptedError, UnreachableError, type Problem } from '../errors';

export interface RequestOptions {
  body?: unknown;
  /** A body that is not JSON (a batch's URL list as text/plain). */
  text?: { contentType: string; data: string };
  query?: Record<string, string | number | boolean | undefined>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** No answer (headers) within this time → unreachable. Default 60 s; 0 = none (the service bounds it). */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * The service's public HTTP API, as a user's own code would call it: bearer key, JSON bodies,
 * problem+json errors. Connection failures become UnreachableError, error statuses ApiError.
 */
export class ApiClient {
  constructor(
    readonly baseUrl: string,
    private readonly key: string | undefined,
    private readonly userAgent: string,
  ) {}

  url(path: string, query?: RequestOptions['query']): string {
    const url = new URL(`${this.baseUrl}${path}`);
    for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    return url.toString();
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    const headers: Record<string, string> = { 'user-agent': this.userAgent, ...extra };
    if (this.key) headers.authorization = `Bearer ${this.key}`;
    return headers;
  }

  /** A JSON request; resolves to the parsed body of a 2xx answer. */
  async json<T>(method: string, path: string, options: RequestOptions = {}): Promise<{ status: number; body: T }> {
    const response = await this.send(method, path, { ...options, headers: { accept: 'application/json', ...options.headers } });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
  }

  /** A GET of binary content (a screenshot); resolves to the body's bytes. */
  async bytes(path: string, signal?: AbortSignal): Promise<Buffer> {
    const response = await this.send('GET', path, { signal });
    return Buffer.from(await response.arrayBuffer());
  }

  /** Any request; resolves to the 2xx response with its body unread (for streaming). */
  async send(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    const headers = this.headers(options.headers);
    let body: string | undefined;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    } else if (options.text) {
      body = options.text.data;
      headers['content-type'] = options.text.contentType;
    }
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const signals = [options.signal, timeoutMs > 0 ? AbortSignal.timeout(timeoutMs) : undefined].filter((s): s is AbortSignal => !!s);
    let response: Response;
    try {
      response = await fetch(this.url(path, options.query), {
        method,
        headers,
        body,
        signal: signals.length ? AbortSignal.any(signals) : undefined,
      });
    } catch (error) {
      throw this.transportError(error, options.signal, timeoutMs);
    }
    if (!response.ok) throw await this.apiError(response, method, path);
    return response;
  }

  /** Turns a failed fetch into the CLI's error: interrupted, timed out or unreachable. */
  transportError(error: unknown, signal: AbortSignal | undefined, timeoutMs: number): Error {
    if (signal?.aborted) return signal.reason instanceof Error ? signal.reason : new InterruptedError();
    const err = error as { name?: string; cause?: { code?: string; message?: string }; message?: string };
    if (err.name === 'TimeoutError') return new UnreachableError(this.baseUrl, `no answer within ${Math.round(timeoutMs / 1000)} s`);
    const cause = err.cause;
    const reason = cause?.code
      ? `${cause.code}${cause.message && !cause.message.includes(cause.code) ? ` (${cause.message})` : ''}`
      : (cause?.message ?? err.message ?? String(error));
    return new UnreachableError(this.baseUrl, reason);
  }

  async apiError(response: Response, method: string, path: string): Promise<ApiError> {
    const text = await response.text().catch(() => '');
    let problem: Problem;
    try {
      const parsed = JSON.parse(text) as unknown;
      problem = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Problem) : { detail: text.slice(0, 300) };
    } catch {
      problem = { detail: text.trim().slice(0, 300) || undefined };
    }
    problem.title ??= response.statusText || `HTTP ${response.status}`;
    return new ApiError(response.status, problem, method, path);
  }
}
