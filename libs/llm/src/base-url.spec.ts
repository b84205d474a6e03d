import { BASE_URL_SCHEMA, baseUrlProblem, isSafeToEcho, STORED_BASE_URL_SCHEMA } from './base-url';

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
    ['©z', 'must be an absolute http or https URL'],
    ['https://exämple.com/v1', 'RFC 3986 characters'],
    ['http://ollama_host:11434', 'RFC 3986 characters'],
    ['https://example.com/a b', 'must not contain spaces'],
    ['https://example.com/{model}', 'RFC 3986 characters'],
  ])('rejects %s', (url, message) => {
    expect(baseUrlProblem(url)).toContain(message);
  });

  it('accepts exactly what the OpenAPI schema of a base_url accepts', () => {
    const pattern = new RegExp(BASE_URL_SCHEMA.pattern);
    const stored = new RegExp(STORED_BASE_URL_SCHEMA.pattern);
    const bySchema = (value: string) => value.length <= BASE_URL_SCHEMA.maxLength && pattern.test(value);
    const values = [
      'https://api.example.com/v1',
      'HTTP://LOCALHOST:11434/',
      'http://10.0.0.5:8080/openai/v1?x=1&y=%20',
      'https://[::1]:8443',
      'https://[fe80::1]/v1',
      'http://host.:80',
      'https://example.com:65535',
      'https://example.com:65536',
      'https://example.com/#x',
      'https://example.com/?q#',
      'https://u@example.com',
      'https://example.com/@user',
      'http://1.2.3',
      'http://256.1.1.1',
      'http://example.123',
      'ftp://example.com',
      'https://',
      'https:/example.com',
      '\u00a9z',
      'https://ex\u00e4mple.com',
      'https://example.com/\u00e4',
      `https://example.com/${'a'.repeat(2028)}`,
      `https://example.com/${'a'.repeat(2029)}`,
    ];
    for (const value of values) expect([value, baseUrlProblem(value) === null]).toEqual([value, bySchema(value)]);
    // PUT /llm/keys: the same, or "" (a reset).
    for (const value of values) expect([value, stored.test(value)]).toEqual([value, pattern.test(value)]);
    expect(stored.test('')).toBe(true);
    expect(pattern.test('')).toBe(false);
  });

  it('never echoes a URL that may hold credentials', () => {
    expect(isSafeToEcho('ftp://example.com')).toBe(true);
    expect(isSafeToEcho('https://user:pass@example.com')).toBe(false);
  });
});
