import { baseUrlProblem, isSafeToEcho } from './base-url';

describe('provider base_url rules', () => {
  it.each(['https://api.example.com/v1', 'http://localhost:11434', 'http://10.0.0.5:8080/openai/v1', 'https://[::1]:8443'])(
    'accepts %s',
    (url) => {
      expect(baseUrlProblem(url)).toBeNull();
    },
  );

  it.each([
    ['ftp://example.com', 'must use http or https'],
    ['file:///etc/passwd', 'must use http or https'],
    ['javascript:alert(1)', 'must use http or https'],
    ['example.com/v1', 'must be an absolute http or https URL'],
    ['https://user:pass@example.com', 'must not contain credentials'],
    ['https://token@example.com', 'must not contain credentials'],
    ['https://example.com/#x', 'must not have a fragment'],
    [' https://example.com', 'must not contain spaces'],
    [`https://example.com/${'a'.repeat(2048)}`, 'at most 2048'],
  ])('rejects %s', (url, message) => {
    expect(baseUrlProblem(url)).toContain(message);
  });

  it('never echoes a URL that may hold credentials', () => {
    expect(isSafeToEcho('ftp://example.com')).toBe(true);
    expect(isSafeToEcho('https://user:pass@example.com')).toBe(false);
  });
});
