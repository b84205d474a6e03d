import { changeTracking } from './change-tracking';

describe('changeTracking (a page against the previous archived copy)', () => {
  const previous = { markdown: '# Tick\n\nVisit 1\n', fetchedAt: '2026-12-01T10:00:00.000Z' };

  it('is new without a previous copy', () => {
    expect(changeTracking(null, { markdown: '# Tick' }, ['git-diff'])).toEqual({
      previousScrapeAt: null,
      changeStatus: 'new',
      visibility: 'visible',
    });
  });

  it('is same when only line endings and trailing spaces differ, with no diff', () => {
    expect(changeTracking(previous, { markdown: '# Tick  \r\n\r\nVisit 1' }, ['git-diff'])).toEqual({
      previousScrapeAt: '2026-12-01T10:00:00.000Z',
      changeStatus: 'same',
      visibility: 'visible',
    });
  });

  it('is changed, with the unified diff when git-diff is asked for', () => {
    const changed = changeTracking(previous, { markdown: '# Tick\n\nVisit 2' }, ['git-diff']);
    expect(changed).toMatchObject({ changeStatus: 'changed', previousScrapeAt: previous.fetchedAt });
    expect(changed.diff?.text).toContain('--- previous');
    expect(changed.diff?.text).toContain('+++ current');
    expect(changed.diff?.text).toMatch(/^-Visit 1$/m);
    expect(changed.diff?.text).toMatch(/^\+Visit 2$/m);
    expect(changeTracking(previous, { markdown: 'Visit 2' }, []).diff).toBeUndefined();
  });

  it('json mode: the extracted fields that differ, compared as a monitor compares them; a field change alone is a change', () => {
    const before = { ...previous, json: { name: 'Widget', price: '1,299.00', tags: ['a', 'b'] } };
    const same = changeTracking(before, { markdown: previous.markdown, json: { name: 'Widget', price: 1299, tags: ['b', 'a'] } }, ['json']);
    expect(same).toEqual({ previousScrapeAt: previous.fetchedAt, changeStatus: 'same', visibility: 'visible', json: {} });
    const changed = changeTracking(before, { markdown: previous.markdown, json: { name: 'Widget', price: '1,499.00', tags: ['a', 'b'] } }, [
      'json',
      'git-diff',
    ]);
    expect(changed).toEqual({
      previousScrapeAt: previous.fetchedAt,
      changeStatus: 'changed',
      visibility: 'visible',
      json: { price: { previous: '1,299.00', current: '1,499.00' } },
    });
  });
});
