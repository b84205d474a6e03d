import type { Writable } from 'node:stream';
import type { Colors } from '../util/colors';
import { loadLogUpdate } from '../util/esm';
import { formatClock, formatCompact, formatInt, formatRate, formatUsd } from '../util/format';
import { runningLabel } from './job-kinds';

/** What the progress line shows; the follower keeps it up to date. */
export interface ProgressState {
  jobId: string;
  jobType: string;
  status: string;
  /** Pages extracted. */
  done: number;
  failed: number;
  /** URLs admitted to the crawl (`urls_queued`): done, failed, running and waiting; shown with the skipped ones as `discovered`. */
  discovered: number;
  skipped: number;
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
  pagesPerSecond: number | null;
  etaSeconds: number | null;
  elapsedMs: number;
  /** Some page met a 429 or a Retry-After (crawl map): the crawl slows down for that host. */
  rateLimited: boolean;
  /** Set while the job stream is down: why, and which attempt. */
  reconnecting: string | null;
  cancelling: boolean;
}

export interface ProgressDisplay {
  start(): void;
  update(state: ProgressState): void;
  /** A line that stays (a warning, a notice), written above the live line. */
  note(line: string): void;
  /** Takes the live line away (while a prompt is shown). */
  pause(): void;
  resume(): void;
  stop(): void;
}

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

interface Segment {
  text: string;
  style?: (s: string) => string;
  /** Lower goes first when the line is too wide. */
  priority: number;
}

/**
 * The progress line: `12 done / 40 discovered · 1 failed · 2.4 pages/s · 15.2k tokens · $0.0123 ·
 * ETA 0:12 · 0:07`. With `maxWidth`, the least useful parts are left out so it never wraps.
 */
export function formatProgressLine(state: ProgressState, colors: Colors, options: { spinner?: string; maxWidth?: number } = {}): string {
  const segments: Segment[] = [];
  const label = state.cancelling ? 'cancelling' : state.status === 'running' ? runningLabel(state.jobType) : state.status;
  segments.push({ text: `${options.spinner ? `${options.spinner} ` : ''}${label}`, style: colors.cyan, priority: 9 });
  if (state.reconnecting) segments.push({ text: `⚠ ${state.reconnecting}`, style: colors.yellow, priority: 10 });
  // Every URL found: those the job fetches (`urls_queued`) and those it ruled out, so done + failed + skipped + waiting add up.
  segments.push({ text: `${formatInt(state.done)} done / ${formatInt(state.discovered + state.skipped)} discovered`, priority: 10 });
  segments.push({ text: `${formatInt(state.failed)} failed`, style: state.failed > 0 ? colors.red : undefined, priority: 8 });
  if (state.skipped > 0) segments.push({ text: `${formatInt(state.skipped)} skipped`, style: colors.dim, priority: 2 });
  if (state.pagesPerSecond !== null) segments.push({ text: `${formatRate(state.pagesPerSecond)} pages/s`, priority: 5 });
  segments.push({ text: `${formatCompact(state.tokensIn + state.tokensOut)} tokens`, priority: 4 });
  segments.push({ text: formatUsd(state.costUsd), priority: 6 });
  if (state.etaSeconds !== null) segments.push({ text: `ETA ${formatClock(state.etaSeconds)}`, priority: 7 });
  if (state.rateLimited) segments.push({ text: '⏸ rate-limited', style: colors.yellow, priority: 9 });
  segments.push({ text: formatClock(state.elapsedMs / 1000), style: colors.dim, priority: 3 });

  const width = (list: Segment[]) => list.reduce((sum, s) => sum + [...s.text].length, 0) + 3 * (list.length - 1);
  let kept = segments;
  if (options.maxWidth !== undefined) {
    const byPriority = [...segments].sort((a, b) => a.priority - b.priority);
    while (width(kept) > options.maxWidth && byPriority.length > 1) {
      const drop = byPriority.shift()!;
      kept = kept.filter((s) => s !== drop);
    }
  }
  const separator = colors.dim(' · ');
  return kept.map((s) => (s.style ? s.style(s.text) : s.text)).join(separator);
}

interface TerminalStream {
  write(chunk: string): boolean;
  isTTY?: boolean;
  columns?: number;
  rows?: number;
}

/**
 * A line redrawn in place on a terminal (log-update: erases the previous frame with cursor
 * control, wrap-aware), with a spinner and a clock ticking between events.
 */
export class LiveProgress implements ProgressDisplay {
  private render: (((text: string) => void) & { clear(): void; done(): void }) | null = null;
  private ticker: NodeJS.Timeout | undefined;
  private state: ProgressState | null = null;
  private frame = 0;
  private paused = false;
  /** Notes that came while paused (a question is on the screen): written on resume. */
  private readonly held: string[] = [];

  private constructor(
    private readonly stream: TerminalStream,
    private readonly colors: Colors,
  ) {}

  static async create(stream: TerminalStream, colors: Colors): Promise<LiveProgress> {
    const display = new LiveProgress(stream, colors);
    const { createLogUpdate } = await loadLogUpdate();
    // A terminal whose size is unknown reports 0 columns/rows: use 80×24 rather than nothing.
    const target = {
      write: (chunk: string) => stream.write(chunk),
      isTTY: true,
      get columns() {
        return stream.columns || 80;
      },
      get rows() {
        return stream.rows || 24;
      },
    };
    display.render = createLogUpdate(target as unknown as NodeJS.WriteStream);
    return display;
  }

  start(): void {
    this.paused = false;
    this.ticker ??= setInterval(() => {
      this.frame++;
      this.draw();
    }, 120);
  }

  update(state: ProgressState): void {
    this.state = state;
    this.draw();
  }

  note(line: string): void {
    if (this.paused) {
      this.held.push(line);
      return;
    }
    this.render?.clear();
    this.stream.write(`${line}\n`);
    this.draw();
  }

  pause(): void {
    this.paused = true;
    this.render?.clear();
  }

  resume(): void {
    this.paused = false;
    for (const line of this.held.splice(0)) this.stream.write(`${line}\n`);
    this.draw();
  }

  stop(): void {
    clearInterval(this.ticker);
    this.ticker = undefined;
    this.render?.clear();
    this.render?.done();
    for (const line of this.held.splice(0)) this.stream.write(`${line}\n`);
  }

  private draw(): void {
    if (this.paused || !this.state || !this.render) return;
    const width = Math.max(20, (this.stream.columns || 80) - 1);
    this.render(formatProgressLine(this.state, this.colors, { spinner: SPINNER[this.frame % SPINNER.length], maxWidth: width }));
  }
}

/** For logs and pipes: a plain line now and then (when something changed), never cursor control. */
export class PlainProgress implements ProgressDisplay {
  private lastPrinted = 0;
  private lastKey = '';
  private lastStatus = '';
  private state: ProgressState | null = null;
  private paused = false;

  constructor(
    private readonly stream: Writable,
    private readonly colors: Colors,
    private readonly intervalMs: number,
  ) {}

  start(): void {}

  update(state: ProgressState): void {
    this.state = state;
    if (this.paused) return;
    const now = Date.now();
    const statusChanged = state.status !== this.lastStatus;
    if (!statusChanged && now - this.lastPrinted < this.intervalMs) return;
    this.print(now);
  }

  note(line: string): void {
    this.stream.write(`${line}\n`);
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
  }

  /** The last state, if it was not printed yet. */
  stop(): void {
    if (this.state && !this.paused) this.print(Date.now());
  }

  private print(now: number): void {
    const state = this.state!;
    this.lastStatus = state.status;
    // Only when something other than the clock moved.
    const key = JSON.stringify([
      state.status,
      state.done,
      state.failed,
      state.discovered,
      state.skipped,
      state.costUsd,
      state.rateLimited,
      state.reconnecting,
      state.cancelling,
    ]);
    if (key === this.lastKey) return;
    this.lastKey = key;
    this.lastPrinted = now;
    this.stream.write(`${this.colors.dim(`[${state.jobId}]`)} ${formatProgressLine(state, this.colors)}\n`);
  }
}

/** --quiet and --json: no progress, only the notes (warnings). */
export class NoProgress implements ProgressDisplay {
  constructor(private readonly stream: Writable) {}
  start(): void {}
  update(): void {}
  note(line: string): void {
    this.stream.write(`${line}\n`);
  }
  pause(): void {}
  resume(): void {}
  stop(): void {}
}
