import { createColors } from 'picocolors';
import { formatProgressLine, type ProgressState } from './progress';

const plain = createColors(false);

function state(overrides: Partial<ProgressState> = {}): ProgressState {
  return {
    jobId: '01JD0000000000000000000000',
    jobType: 'crawl',
    status: 'running',
    done: 12,
    failed: 1,
    discovered: 40,
    skipped: 3,
    tokensIn: 12_000,
    tokensOut: 3_200,
    costUsd: 0.0123,
    pagesPerSecond: 2.4,
    etaSeconds: 12,
    elapsedMs: 7_000,
    rateLimited: false,
    reconnecting: null,
    cancelling: false,
    ...overrides,
  };
}

describe('formatProgressLine', () => {
  it('adds up as a reader expects: discovered is every URL found, the skipped ones included (issue 40)', () => {
    // A finished crawl: 60 pages, 601 URLs ruled out; urls_queued counts only the 60 fetched.
    const line = formatProgressLine(state({ status: 'completed', done: 60, failed: 0, discovered: 60, skipped: 601 }), plain);
    expect(line).toContain('60 done / 661 discovered · 0 failed · 601 skipped');
  });

  it('shows pages done / discovered / failed, rate, tokens, cost, ETA and the clock', () => {
    expect(formatProgressLine(state(), plain)).toBe(
      'crawling · 12 done / 43 discovered · 1 failed · 3 skipped · 2.4 pages/s · 15.2k tokens · $0.0123 · ETA 0:12 · 0:07',
    );
  });

  it('names what each kind of job is doing', () => {
    const label = (jobType: string) => formatProgressLine(state({ jobType }), plain).split(' · ')[0];
    expect(['crawl', 'batch', 'reextract', 'warc-extract', 'extract'].map(label)).toEqual([
      'crawling',
      'extracting',
      're-extracting',
      'extracting',
      'running',
    ]);
  });

  it('says when the crawl is rate-limited, reconnecting or being cancelled', () => {
    const line = formatProgressLine(state({ rateLimited: true, reconnecting: 'reconnecting (ECONNREFUSED)', cancelling: true }), plain);
    expect(line).toMatch(/^cancelling · ⚠ reconnecting \(ECONNREFUSED\) · /);
    expect(line).toContain('⏸ rate-limited');
  });

  it('leaves the least useful parts out to fit a narrow terminal, never the counts', () => {
    const line = formatProgressLine(state({ rateLimited: true }), plain, { spinner: '⠋', maxWidth: 60 });
    expect([...line].length).toBeLessThanOrEqual(60);
    expect(line).toContain('12 done / 43 discovered');
    expect(line).toContain('⏸ rate-limited');
    expect(line).not.toContain('skipped');
    expect(line.startsWith('⠋ crawling')).toBe(true);
  });

  it('colours only when asked (NO_COLOR gives the same text)', () => {
    const coloured = formatProgressLine(state({ failed: 2 }), createColors(true));
    expect(coloured).toContain('\x1b[');
    expect(coloured.replace(/\x1b\[\d+m/g, '')).toBe(formatProgressLine(state({ failed: 2 }), plain));
  });
});
