import { parseAnalyzeInput } from './job-inputs';

describe('analyze job input: its fetch control stored whole, as an extract keeps it', () => {
  const base = { url: 'https://shop.test/', depth: 0, fetch_mode: 'auto', site_id: null, llm_config: null };

  it('reads the stored fetch control, and none on a job without one', () => {
    const fetch_control = { user_agent: null, wait_for: null, proxy: 'resi', auth_profile: 'p1' };
    expect(parseAnalyzeInput({ ...base, fetch_control }).fetch_control).toEqual(fetch_control);
    expect(parseAnalyzeInput({ ...base, fetch_control: null }).fetch_control).toBeNull();
    expect(parseAnalyzeInput(base).fetch_control).toBeNull();
  });

  it('reads a job stored before it: its pool and profile named on their own', () => {
    expect(parseAnalyzeInput({ ...base, proxy: 'resi', auth_profile: null })).toEqual({
      ...base,
      fetch_control: { user_agent: null, wait_for: null, proxy: 'resi' },
    });
    expect(parseAnalyzeInput({ ...base, proxy: null, auth_profile: 'p1' }).fetch_control).toEqual({
      user_agent: null,
      wait_for: null,
      auth_profile: 'p1',
    });
    expect(parseAnalyzeInput({ ...base, proxy: null, auth_profile: null })).toEqual({ ...base, fetch_control: null });
  });
});
