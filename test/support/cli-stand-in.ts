import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { SignalHub } from '../../apps/cli/src/follow/signals';
import { runCli } from '../../apps/cli/src/program';

/** A request the stand-in service received: method, path and JSON body (null when none). */
export interface SeenRequest {
  method: string;
  path: string;
  body: any;
}

/** What the stand-in answers a request with (201 to a POST, 200 otherwise, as the service does). */
export type StandInReply = (request: SeenRequest) => unknown;

/**
 * A stand-in Gleaner service for the CLI's command specs: it records every request and answers JSON from
 * `reply`; `gleaner(args, env)` runs the CLI in process against it, with an API key and no colours.
 */
export class CliStandIn {
  readonly seen: SeenRequest[] = [];
  /** Each request's Authorization header, in the order of `seen`. */
  readonly authorizations: string[] = [];
  private server?: http.Server;
  private url = '';

  constructor(private readonly reply: StandInReply) {}

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      req.on('end', () => {
        const request = { method: req.method ?? '', path: req.url ?? '', body: text ? JSON.parse(text) : null };
        this.seen.push(request);
        this.authorizations.push(req.headers.authorization ?? '');
        res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(this.reply(request)));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Forgets what was received (between tests). */
  clear(): void {
    this.seen.length = 0;
    this.authorizations.length = 0;
  }

  stop(): Promise<void> {
    return new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  async gleaner(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    let err = '';
    stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
    const all = { GLEANER_URL: this.url, GLEANER_API_KEY: `glk_${'a'.repeat(40)}`, NO_COLOR: '1', ...env };
    const code = await runCli(args, { stdin: new PassThrough(), stdout, stderr }, all, new SignalHub());
    return { code, stdout: out, stderr: err };
  }
}
