import { NEW_ADMIN_KEY_HINT, startupNote } from './startup-note';

const SECRET = 'glk_' + 'a'.repeat(40);

describe('startupNote', () => {
  it('prints a generated key once, with how to make another', () => {
    const note = startupNote({ kind: 'generated', secret: SECRET }, 'all', 8080);
    expect(note).toContain(`    ${SECRET}\n`);
    expect(note).toContain('http://localhost:8080/api/v1/jobs');
    expect(note).toContain(NEW_ADMIN_KEY_HINT);
  });

  it.each([
    [{ kind: 'from_setting', keyPrefix: 'glk_aaaaaaaa' }, 'all'],
    [{ kind: 'exists' }, 'all'],
    [{ kind: 'exists' }, 'api'],
    [{ kind: 'claimed' }, 'all'],
    [{ kind: 'none' }, 'api'],
  ] as const)('%j (%s): no secret, how to make an admin key', (outcome, role) => {
    const note = startupNote(outcome, role, 8080);
    expect(note).not.toMatch(/glk_[0-9A-Za-z]{40}/);
    expect(note).toContain('gleaner users create --name NAME --admin');
  });

  it('tells a cluster role with an empty store that it makes no key, and how to make one', () => {
    const note = startupNote({ kind: 'none' }, 'api', 8080);
    expect(note).toContain('No API key exists yet');
    expect(note).toContain('MONGODB_URI, REDIS_URL and GLEANER_SECRET');
    expect(note).toContain('GLEANER_BOOTSTRAP_KEY');
  });
});
