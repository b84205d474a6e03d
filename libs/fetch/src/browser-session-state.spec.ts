import { createContext, runInContext } from 'node:vm';
import { localStorageScript, seedSession } from './browser-session-state';

function recordingContext() {
  const cookies: Array<{ name: string; value: string; url: string }> = [];
  const scripts: string[] = [];
  return {
    cookies,
    scripts,
    context: {
      addCookies: async (added: Array<{ name: string; value: string; url: string }>) => void cookies.push(...added),
      addInitScript: async (script: { content: string }) => void scripts.push(script.content),
    } as never,
  };
}

describe('seedSession', () => {
  it('gives each profile host its session cookies, host-only, then the scope host its scoped cookies (added last: they win by name)', async () => {
    const { context, cookies, scripts } = recordingContext();
    await seedSession(
      context,
      { hosts: ['a.test', 'b.test'], cookies: { sid: '1' } },
      { headers: {}, cookies: { sid: '2', theme: 'dark' }, host: 'a.test' },
    );
    expect(cookies).toEqual([
      { name: 'sid', value: '1', url: 'http://a.test/' },
      { name: 'sid', value: '1', url: 'http://b.test/' },
      { name: 'sid', value: '2', url: 'http://a.test/' },
      { name: 'theme', value: 'dark', url: 'http://a.test/' },
    ]);
    expect(scripts).toEqual([]);
  });

  it('adds a local storage script when the session kept items, and nothing at all for an empty session or unscoped cookies', async () => {
    const seeded = recordingContext();
    await seedSession(seeded.context, { hosts: ['a.test'], cookies: {}, localStorage: { token: 't' } }, undefined);
    expect(seeded.cookies).toEqual([]);
    expect(seeded.scripts).toEqual([localStorageScript(['a.test'], { token: 't' })]);
    const empty = recordingContext();
    await seedSession(empty.context, undefined, { headers: {}, cookies: { a: '1' } });
    expect(empty.cookies).toEqual([]);
    expect(empty.scripts).toEqual([]);
  });
});

describe('localStorageScript', () => {
  const run = (hostname: string) => {
    const stored: Record<string, string> = {};
    const window = { location: { hostname }, localStorage: { setItem: (k: string, v: string) => (stored[k] = v) } };
    runInContext(localStorageScript(['a.test'], { token: 't', "it's": '"quoted"' }), createContext(window));
    return stored;
  };

  it('sets the items on the pages of the session’s hosts (any case) and on no other page', () => {
    expect(run('A.test')).toEqual({ token: 't', "it's": '"quoted"' });
    expect(run('evil.test')).toEqual({});
  });
});
