import { callKind } from './call-kind';

describe('callKind', () => {
  it('is the model call a page cost: full by default, partial when so, none for a learned program or last run’s record', () => {
    expect(callKind({ method: 'model' })).toBe('full');
    expect(callKind({ method: null })).toBe('full'); // entries stored before calls had kinds
    expect(callKind({ method: 'mixed', model_call: 'partial' })).toBe('partial');
    expect(callKind({ method: 'selectors' })).toBeNull();
    expect(callKind({ method: 'unchanged' })).toBeNull();
  });

  it('a formats page: none, unless its json format called the model', () => {
    expect(callKind({ method: 'scrape' })).toBeNull();
    expect(callKind({ method: 'scrape', model_call: null })).toBeNull();
    expect(callKind({ method: 'scrape', model_call: 'full' })).toBe('full');
  });
});
