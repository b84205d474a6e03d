import * as http from 'node:http';
import * as https from 'node:https';
import { AddressGuard, pinnedLookup } from '@app/fetch';
import { AppError } from '@app/core';

export interface SendResult {
  ok: boolean;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}

/**
 * One POST of a webhook: the address guard checks the target at delivery time and the socket
 * connects to the vetted address; redirects are not followed; the whole exchange is bounded by
 * the timeout. Never throws: every outcome is a SendResult.
 */
export class WebhookSender {
  constructor(
    private readonly guard: AddressGuard,
    private readonly timeoutMs: number,
  ) {}

  async send(url: string, headers: Record<string, string>, body: string): Promise<SendResult> {
    const started = Date.now();
    const elapsed = () => Date.now() - started;
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return { ok: false, statusCode: null, durationMs: 0, error: 'invalid URL' };
    }
    let addresses;
    try {
      addresses = await this.guard.checkUrl(target);
    } catch (error) {
      const message = error instanceof AppError ? (error.detail ?? error.message) : 'address check failed';
      return { ok: false, statusCode: null, durationMs: elapsed(), error: message };
    }
    const client = target.protocol === 'https:' ? https : http;
    return new Promise<SendResult>((resolve) => {
      let settled = false;
      const finish = (result: Omit<SendResult, 'durationMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ ...result, durationMs: elapsed() });
      };
      const request = client.request(
        target,
        {
          method: 'POST',
          headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
          lookup: pinnedLookup(addresses),
          agent: false,
        },
        (response) => {
          const status = response.statusCode ?? 0;
          response.resume(); // drain; the body is not needed
          response.on('end', () =>
            finish({
              ok: status >= 200 && status < 300,
              statusCode: status,
              error: status >= 200 && status < 300 ? null : `HTTP ${status}`,
            }),
          );
          response.on('error', () => finish({ ok: false, statusCode: status, error: 'response aborted' }));
        },
      );
      const timer = setTimeout(() => {
        request.destroy();
        finish({ ok: false, statusCode: null, error: `timed out after ${this.timeoutMs} ms` });
      }, this.timeoutMs);
      request.on('error', (error: NodeJS.ErrnoException) =>
        finish({ ok: false, statusCode: null, error: error.code ? `connection failed (${error.code})` : 'connection failed' }),
      );
      request.end(body);
    });
  }
}
