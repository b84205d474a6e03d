import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { ApiClient } from './api/api-client';
import { CliUsageError } from './errors';
import type { SignalHub } from './follow/signals';
import { colorsFor, type Colors } from './util/colors';

export const DEFAULT_URL = 'http://localhost:8080';

export type TerminalWritable = Writable & { isTTY?: boolean; columns?: number; rows?: number };

export interface ApiIo {
  stdin: Readable & { isTTY?: boolean };
  stdout: TerminalWritable;
  stderr: TerminalWritable;
}

/** Options every API command accepts (before or after the command name). */
export interface GlobalOptions {
  url?: string;
  key?: string;
  json?: boolean;
  color?: boolean;
  quiet?: boolean;
}

/** What a command needs from the process: streams, environment, options, Ctrl-C and the API client. */
export class CliContext {
  readonly out: Colors;
  readonly err: Colors;

  constructor(
    readonly io: ApiIo,
    readonly env: NodeJS.ProcessEnv,
    readonly globals: GlobalOptions,
    readonly signals: SignalHub,
    /** Aborted by Ctrl-C when no job is being followed. */
    readonly signal: AbortSignal,
  ) {
    this.out = colorsFor(io.stdout, env, globals.color !== false);
    this.err = colorsFor(io.stderr, env, globals.color !== false);
  }

  get json(): boolean {
    return this.globals.json === true;
  }

  get quiet(): boolean {
    return this.globals.quiet === true;
  }

  /** --url, else GLEANER_URL, else http://localhost:8080; --key, else GLEANER_API_KEY. */
  client(): ApiClient {
    const raw = (this.globals.url ?? this.env.GLEANER_URL ?? DEFAULT_URL).trim();
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new CliUsageError(`--url must be an http(s) URL, got "${raw}"`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliUsageError(`--url must be an http(s) URL, got "${raw}"`);
    const key = this.globals.key ?? this.env.GLEANER_API_KEY;
    return new ApiClient(url.toString().replace(/\/+$/, ''), key?.trim() || undefined, `gleaner-cli/${cliVersion()}`);
  }

  /** A line for people on stderr (never with --json or --quiet). */
  info(line: string): void {
    if (!this.json && !this.quiet) this.io.stderr.write(`${line}\n`);
  }
}

let version: string | undefined;

/** The package version (package.json is 3 levels up from the sources, 4 from dist/). */
export function cliVersion(): string {
  if (version) return version;
  let dir = __dirname;
  for (let i = 0; i < 6; i++) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'gleaner' && pkg.version) return (version = pkg.version);
    }
    dir = dirname(dir);
  }
  return (version = '0.0.0');
}
