import { Metrics } from '@app/observability';
import { AuthMetrics, PROFILE_LABELS } from './auth-metrics';

/** The `profile` values of a metric's series in the exposition text. */
function profiles(text: string, metric: string): Set<string> {
  const found = new Set<string>();
  for (const line of text.split('\n')) if (line.startsWith(`${metric}{`)) found.add(/profile="([^"]*)"/.exec(line)?.[1] ?? '(none)');
  return found;
}

describe('AuthMetrics', () => {
  it(`labels logins and session ages by profile id: the first ${PROFILE_LABELS} a process sees, every later one other`, async () => {
    const metrics = new Metrics('test');
    const auth = new AuthMetrics(metrics);
    const ids = Array.from({ length: PROFILE_LABELS + 50 }, (_, i) => `profile-${i}`);
    for (const id of ids) {
      auth.login(id, 'first', 'success');
      auth.login(id, 'relogin', 'failure');
      auth.sessionUsed(id, Date.now() - 60_000);
    }
    // A named profile keeps its name when it comes back after the cap was reached.
    auth.login('profile-3', 'expired', 'success');
    const text = await metrics.render();
    const expected = new Set([...ids.slice(0, PROFILE_LABELS), 'other']);
    expect(profiles(text, 'gleaner_auth_logins_total')).toEqual(expected);
    expect(profiles(text, 'gleaner_auth_session_age_seconds')).toEqual(expected);
    expect(text).toContain('gleaner_auth_logins_total{kind="first",outcome="success",profile="other",role="test"} 50');
    expect(text).toContain('gleaner_auth_logins_total{kind="relogin",outcome="failure",profile="profile-0",role="test"} 1');
    expect(text).toContain('gleaner_auth_logins_total{kind="expired",outcome="success",profile="profile-3",role="test"} 1');
    const age = /gleaner_auth_session_age_seconds\{profile="profile-7",role="test"\} ([\d.]+)/.exec(text);
    expect(Number(age?.[1])).toBeGreaterThanOrEqual(60);
  });

  it('has the six login series and the session age of other at 0 from the start (every process has the series a panel reads)', async () => {
    const metrics = new Metrics('test');
    new AuthMetrics(metrics);
    const text = await metrics.render();
    for (const kind of ['first', 'expired', 'relogin'])
      for (const outcome of ['success', 'failure'])
        expect(text).toContain(`gleaner_auth_logins_total{kind="${kind}",outcome="${outcome}",profile="other",role="test"} 0`);
    expect(text).toContain('gleaner_auth_session_age_seconds{profile="other",role="test"} 0');
    expect(profiles(text, 'gleaner_auth_logins_total')).toEqual(new Set(['other']));
  });

  it('one cap per process: a second AuthMetrics on the same registry shares the named profiles and the counter', async () => {
    const metrics = new Metrics('test');
    const a = new AuthMetrics(metrics);
    for (let i = 0; i < PROFILE_LABELS; i++) a.login(`p-${i}`, 'first', 'success');
    new AuthMetrics(metrics).login('late', 'first', 'failure');
    const text = await metrics.render();
    expect(text).toContain('gleaner_auth_logins_total{kind="first",outcome="failure",profile="other",role="test"} 1');
    expect(profiles(text, 'gleaner_auth_logins_total').size).toBe(PROFILE_LABELS + 1);
  });
});
