import { createColors } from 'picocolors';
import { renderSummary, type JobSummary } from './watch';

const plain = createColors(false);

function summary(overrides: Partial<JobSummary> = {}): JobSummary {
  return {
    job_id: '01JD0000000000000000000000',
    type: 'crawl',
    status: 'completed',
    pages: 7,
    failed: 0,
    skipped: 3,
    skipped_by_reason: { duplicate: 3 },
    failures_by_category: {},
    rate_limited: false,
    ungrounded_fields: 0,
    duplicates: null,
    model_calls_saved: null,
    token_usage: { input: 1000, output: 100 },
    cost_usd: 0.01,
    duration_ms: 2_000,
    error_category: null,
    error_message: null,
    output: null,
    results_written: 7,
    results_unit: 'lines',
    ...overrides,
  };
}

describe('renderSummary (the end of crawl and batch)', () => {
  it('shows the duplicates by reason and the model calls they saved (docs/dedup.md)', () => {
    const text = renderSummary(summary({ duplicates: { canonical: 1, exact: 0, near: 2, redirect: 0 }, model_calls_saved: 3 }), plain);
    expect(text).toContain('  duplicates 3 (near 2, canonical 1) · 3 model calls saved\n');
  });

  it('says nothing of duplicates when there were none, or the job has no count', () => {
    expect(
      renderSummary(summary({ duplicates: { canonical: 0, exact: 0, near: 0, redirect: 0 }, model_calls_saved: 0 }), plain),
    ).not.toContain('duplicates');
    expect(renderSummary(summary(), plain)).not.toContain('duplicates');
  });
});
