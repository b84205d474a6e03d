import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';

export function tempDir(prefix = 'gleaner-e2e-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Collects every log line written by the app, to assert secrets never appear in them. */
export class LogCapture extends Writable {
  readonly chunks: string[] = [];
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.chunks.push(chunk.toString('utf8'));
    callback();
  }
  get text(): string {
    return this.chunks.join('');
  }
}

export interface HttpResult {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export async function http(
  baseUrl: string,
  method: string,
  path: string,
  options: { key?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<HttpResult> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

export interface SseEvent {
  id?: number;
  event: string;
  data?: any;
  retry?: number;
}

/**
 * Reads an SSE stream until it ends, `stopAfter` events arrived, or the timeout passes; returns the
 * events and comments seen. Aborting the fetch simulates a client disconnect.
 */
export async function readSse(
  url: string,
  options: { key: string; lastEventId?: number; stopAfter?: number; timeoutMs?: number },
): Promise<{ events: SseEvent[]; comments: string[]; ended: boolean; status: number; contentType: string | null }> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs ?? 30_000);
  const headers: Record<string, string> = { authorization: `Bearer ${options.key}`, accept: 'text/event-stream' };
  if (options.lastEventId !== undefined) headers['last-event-id'] = String(options.lastEventId);
  const events: SseEvent[] = [];
  const comments: string[] = [];
  let ended = false;
  const response = await fetch(url, { headers, signal: controller.signal });
  try {
    if (!response.body || response.status !== 200)
      return { events, comments, ended, status: response.status, contentType: response.headers.get('content-type') };
    const decoder = new TextDecoder();
    let buffer = '';
    const reader = response.body.getReader();
    while (true) {
      const { value, done } = await reader.read();
      if (done) {
        ended = true;
        break;
      }
      buffer += decoder.decode(value, { stream: true });
      let index: number;
      while ((index = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, index);
        buffer = buffer.slice(index + 2);
        const event: SseEvent = { event: 'message' };
        let hasField = false;
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) {
            comments.push(line.slice(1).trim());
            continue;
          }
          hasField = true;
          if (line.startsWith('id: ')) event.id = Number(line.slice(4));
          else if (line.startsWith('event: ')) event.event = line.slice(7);
          else if (line.startsWith('retry: ')) event.retry = Number(line.slice(7));
          else if (line.startsWith('data: ')) event.data = JSON.parse(line.slice(6));
          else hasField = false;
        }
        if (hasField && event.id !== undefined) events.push(event);
        if (options.stopAfter !== undefined && events.length >= options.stopAfter) {
          controller.abort();
          return { events, comments, ended, status: response.status, contentType: response.headers.get('content-type') };
        }
      }
    }
  } catch (error) {
    if ((error as Error).name !== 'AbortError') throw error;
  } finally {
    clearTimeout(timer);
  }
  return { events, comments, ended, status: response.status, contentType: response.headers.get('content-type') };
}

export async function waitFor<T>(probe: () => Promise<T | undefined | null | false>, timeoutMs = 30_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${String(last)}` : ''}`);
}
