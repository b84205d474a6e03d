import { changeTracking } from './change-tracking';

describe('changeTracking (a page against the previous archived copy)', () => {
  const previous = { markdown: '# Tick\n\nVisit 1\n', fetchedAt: '2026-12-01T10:00:00.000Z' };

  it('is new without a previous copy', () => {
    expect(changeTracking(null, '# Tick', ['git-diff'])).toEqual({ previousScrapeAt: null, changeStatus: 'new', visibility: 'visible' });
  });

  it('is same when only line endings and trailing spaces differ, with no diff', () => {
    expect(changeTracking(previous, '# Tick  \r\n\r\nVisit 1', ['git-diff'])).toEqual({
      previousScrapeAt: '2026-12-01T10:00:00.000Z',
      changeStatus: 'same',
      visibility: 'visible',
    });
  });

  it('is changed, with the unified diff when git-diff is asked for', () => {
    const changed = changeTracking(previous, '# Tick\n\nVisit 2', ['git-diff']);
    expect(changed).toMatchObject({ changeStatus: 'changed', previousScrapeAt: previous.fetchedAt });
    expect(changed.diff?.text).toContain('--- previous');
    expect(changed.diff?.text).toContain('+++ current');
    expect(changed.diff?.text).toMatch(/^-Visit 1$/m);
    expect(changed.diff?.text).toMatch(/^\+Visit 2$/m);
    expect(changeTracking(previous, 'Visit 2', []).diff).toBeUndefined();
  });
});
