/**
 * A real terminal for the CLI: a tmux pane (a terminal emulator: what a person would see, with its
 * scrollback) running the command under util-linux `script`, which also records every byte written
 * to the terminal. Each terminal has its own tmux server (its socket in a temp dir), stopped by `close()`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { which } from '../../harness/servers';
import { tempDir } from '../helpers';

export function requireTerminalTools(): { tmux: string; script: string } {
  const tmux = which('tmux');
  const script = which('script');
  if (!tmux || !script) {
    throw new Error(
      `the terminal test needs tmux and util-linux script (found tmux: ${tmux ?? 'no'}, script: ${script ?? 'no'}); apt-get install -y tmux bsdutils`,
    );
  }
  return { tmux, script };
}

/** POSIX single-quoting. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export class Terminal {
  readonly dir = tempDir('gleaner-cli-tty-');
  readonly rawPath = join(this.dir, 'raw.log');
  /** The tmux server's socket, in this terminal's own directory (nothing is left behind in /tmp/tmux-*). */
  private readonly socket = join(this.dir, 'tmux.sock');

  constructor(
    private readonly tools: { tmux: string; script: string },
    readonly columns = 100,
    readonly rows = 30,
  ) {}

  /**
   * Starts `argv` with `env` (and nothing else of this process's environment but PATH) in a new
   * pane; when it ends, the pane shows `[exit N]` and stays.
   */
  start(argv: string[], env: Record<string, string>): void {
    const exports = Object.entries({ PATH: process.env.PATH ?? '', ...env })
      .map(([k, v]) => `export ${k}=${shellQuote(v)}`)
      .join('\n');
    writeFileSync(join(this.dir, 'command.sh'), `${exports}\nexec ${argv.map(shellQuote).join(' ')}\n`);
    writeFileSync(
      join(this.dir, 'pane.sh'),
      `${shellQuote(this.tools.script)} -qfec ${shellQuote(`sh ${shellQuote(join(this.dir, 'command.sh'))}`)} ${shellQuote(this.rawPath)}\necho "[exit $?]"\n`,
    );
    const config = join(this.dir, 'tmux.conf');
    writeFileSync(config, 'set -g remain-on-exit on\nset -g history-limit 10000\nset -g status off\n');
    this.tmux([
      '-f',
      config,
      'new-session',
      '-d',
      '-s',
      'cli',
      '-x',
      String(this.columns),
      '-y',
      String(this.rows),
      `sh ${shellQuote(join(this.dir, 'pane.sh'))}`,
    ]);
  }

  /** The pane as a person sees it now, with the scrollback above it (trailing blank lines dropped). */
  screen(): string {
    return this.tmux(['capture-pane', '-p', '-t', 'cli', '-S', '-', '-E', '-']).replace(/\s+$/, '');
  }

  /** Every byte the program wrote to the terminal. */
  raw(): string {
    try {
      return readFileSync(this.rawPath, 'utf8');
    } catch {
      return '';
    }
  }

  /** Keys as a person types them (tmux key names: `C-c`, `Enter`, or text). */
  sendKeys(...keys: string[]): void {
    this.tmux(['send-keys', '-t', 'cli', ...keys]);
  }

  close(): void {
    spawnSync(this.tools.tmux, ['-S', this.socket, 'kill-server'], { stdio: 'ignore' });
  }

  private tmux(args: string[]): string {
    return execFileSync(this.tools.tmux, ['-S', this.socket, ...args], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', TERM: 'xterm-256color' },
    });
  }
}
