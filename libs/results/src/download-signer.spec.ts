import { DownloadSigner } from './download-signer';
import { publicBaseUrl } from './public-base-url';

describe('download links', () => {
  const params = { jobId: '01JD0000000000000000000000', format: 'json' as const, merge: false, expires: 2_000_000_000 };

  it('verifies its own signatures, and those of a previous secret', () => {
    const signer = new DownloadSigner('secret-a-0123456789');
    const sig = signer.sign(params);
    expect(sig).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(() => signer.verify(params, sig, 1_000)).not.toThrow();
    expect(() => new DownloadSigner('secret-b-0123456789', ['secret-a-0123456789']).verify(params, sig, 1_000)).not.toThrow();
    expect(() => new DownloadSigner('secret-b-0123456789').verify(params, sig, 1_000)).toThrow(
      expect.objectContaining({ slug: 'forbidden' }),
    );
  });

  it('refuses changed parameters and expired links', () => {
    const signer = new DownloadSigner('secret-a-0123456789');
    const sig = signer.sign(params);
    for (const changed of [{ jobId: 'other' }, { format: 'yaml' as const }, { merge: true }, { expires: params.expires + 1 }]) {
      expect(() => signer.verify({ ...params, ...changed }, sig, 1_000)).toThrow(/signature/);
    }
    expect(() => signer.verify(params, undefined, 1_000)).toThrow(/signature/);
    expect(() => signer.verify(params, sig, params.expires + 1)).toThrow(/expired/);
  });

  it('builds the base URL from config, then well-formed forwarded headers, then Host', () => {
    const origin = (headers: Record<string, string>, protocol = 'http') => ({ headers, protocol });
    expect(publicBaseUrl('https://api.example.com/', origin({ host: 'x' }), 8080)).toBe('https://api.example.com');
    expect(publicBaseUrl(undefined, origin({ host: '127.0.0.1:8080' }), 8080)).toBe('http://127.0.0.1:8080');
    expect(
      publicBaseUrl(undefined, origin({ host: 'a.example', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'b.example' }), 8080),
    ).toBe('https://b.example');
    expect(publicBaseUrl(undefined, origin({ host: '[::1]:9000' }, 'https'), 8080)).toBe('https://[::1]:9000');
    expect(publicBaseUrl(undefined, origin({ host: 'evil.example/path', 'x-forwarded-host': 'a@b' }), 8080)).toBe('http://localhost:8080');
  });
});
