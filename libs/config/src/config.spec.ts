import { mkdtempSync, statSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig, loadConfigOrReport } from './config';
import { crawlMaxPagesSetting } from './config.schema';

const tmp = () => mkdtempSync(join(tmpdir(), 'gleaner-config-'));

describe('loadConfig', () => {
  it('defaults to embedded mode on port 8080', () => {
    const config = loadConfig({ DATA_DIR: tmp() });
    expect(config.deployment).toBe('embedded');
    expect(config.port).toBe(8080);
    expect(config.rateLimitPerMinute).toBe(600);
    expect(config.allowPrivateNetworks).toBe(false);
  });

  it('keeps archived pages 30 days under a 10 GiB cap per tenant by default; 0 turns either off; bad values are refused', () => {
    const config = loadConfig({ DATA_DIR: tmp() });
    expect(config).toMatchObject({
      archiveTtlDays: 30,
      archiveMaxBytesPerTenant: 10 * 1024 ** 3,
      archiveSweepMs: 600_000,
      warcMaxBytes: 1024 ** 3,
    });
    expect(loadConfig({ DATA_DIR: tmp(), GLEANER_ARCHIVE_TTL_DAYS: '0', GLEANER_ARCHIVE_MAX_BYTES_PER_TENANT: '0' })).toMatchObject({
      archiveTtlDays: 0,
      archiveMaxBytesPerTenant: 0,
    });
    let error: unknown;
    try {
      loadConfig({
        DATA_DIR: tmp(),
        GLEANER_ARCHIVE_TTL_DAYS: '-1',
        GLEANER_ARCHIVE_MAX_BYTES_PER_TENANT: 'lots',
        GLEANER_WARC_MAX_BYTES: '10',
      });
    } catch (e) {
      error = e;
    }
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toMatch(/GLEANER_ARCHIVE_TTL_DAYS/);
    expect(problems).toMatch(/GLEANER_ARCHIVE_MAX_BYTES_PER_TENANT/);
    expect(problems).toMatch(/GLEANER_WARC_MAX_BYTES/);
  });

  it("caps a crawl's max_pages at 100,000 unless the operator raises it (up to 10,000,000)", () => {
    expect(loadConfig({ DATA_DIR: tmp() }).crawlMaxPages).toBe(100_000);
    expect(loadConfig({ DATA_DIR: tmp(), GLEANER_CRAWL_MAX_PAGES: '1000001' }).crawlMaxPages).toBe(1_000_001);
    for (const bad of ['0', '10000001', '2.5', 'many']) {
      expect(() => loadConfig({ DATA_DIR: tmp(), GLEANER_CRAWL_MAX_PAGES: bad })).toThrow(/GLEANER_CRAWL_MAX_PAGES.*from 1 to 10000000/);
    }
    expect(crawlMaxPagesSetting({ GLEANER_CRAWL_MAX_PAGES: '250000' })).toBe(250_000);
    expect(crawlMaxPagesSetting({ GLEANER_CRAWL_MAX_PAGES: '0' })).toBe(100_000);
    expect(crawlMaxPagesSetting({})).toBe(100_000);
  });

  it('reports every bad variable at once', () => {
    let error: unknown;
    try {
      loadConfig({ DATA_DIR: tmp(), PORT: 'eighty', LOG_LEVEL: 'loud', GLEANER_ALLOW_PRIVATE_NETWORKS: 'maybe', REDIS_URL: 'http://x' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toMatch(/PORT/);
    expect(problems).toMatch(/LOG_LEVEL/);
    expect(problems).toMatch(/GLEANER_ALLOW_PRIVATE_NETWORKS/);
    expect(problems).toMatch(/REDIS_URL/);
    expect((error as ConfigError).problems.length).toBeGreaterThanOrEqual(4);
  });

  it('picks cluster mode only with both MONGODB_URI and REDIS_URL, and then needs GLEANER_SECRET', () => {
    expect(() => loadConfig({ MONGODB_URI: 'mongodb://127.0.0.1/x' })).toThrow(/REDIS_URL/);
    expect(() => loadConfig({ MONGODB_URI: 'mongodb://127.0.0.1/x', REDIS_URL: 'redis://127.0.0.1' })).toThrow(/GLEANER_SECRET/);
    const config = loadConfig(
      { MONGODB_URI: 'mongodb://127.0.0.1/x', REDIS_URL: 'redis://127.0.0.1', GLEANER_SECRET: 'x'.repeat(32) },
      'api',
    );
    expect(config.deployment).toBe('cluster');
    expect(config.role).toBe('api');
  });

  it('refuses the api and crawler roles without MONGODB_URI and REDIS_URL', () => {
    expect(() => loadConfig({ DATA_DIR: tmp() }, 'api')).toThrow(/cluster mode/);
    expect(() => loadConfig({ DATA_DIR: tmp() }, 'crawler')).toThrow(/cluster mode/);
  });

  it('generates and keeps a 0600 secret in DATA_DIR when none is given', () => {
    const dir = tmp();
    const first = loadConfig({ DATA_DIR: dir });
    const second = loadConfig({ DATA_DIR: dir });
    expect(first.secret).toBe(second.secret);
    expect(first.secret.length).toBeGreaterThanOrEqual(32);
    expect(statSync(join(dir, 'secret')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dir, 'secret'), 'utf8').trim()).toBe(first.secret);
  });

  it('validates the bootstrap key format', () => {
    expect(() => loadConfig({ DATA_DIR: tmp(), GLEANER_BOOTSTRAP_KEY: 'secret' })).toThrow(/GLEANER_BOOTSTRAP_KEY/);
    expect(loadConfig({ DATA_DIR: tmp(), GLEANER_BOOTSTRAP_KEY: 'glk_' + 'a'.repeat(40) }).bootstrapKey).toBe('glk_' + 'a'.repeat(40));
  });
});

describe('loadConfigOrReport', () => {
  it('answers the configuration and writes nothing when it is valid', () => {
    const written: string[] = [];
    const config = loadConfigOrReport({ DATA_DIR: tmp() }, 'all', { write: (text: string) => written.push(text) });
    expect(config?.deployment).toBe('embedded');
    expect(written).toEqual([]);
  });

  it('writes every problem of a bad configuration and answers undefined', () => {
    const written: string[] = [];
    const config = loadConfigOrReport({ DATA_DIR: tmp(), PORT: 'eighty', LOG_LEVEL: 'loud' }, 'all', {
      write: (text: string) => written.push(text),
    });
    expect(config).toBeUndefined();
    expect(written.join('')).toMatch(/Invalid configuration:[\s\S]*PORT[\s\S]*LOG_LEVEL/);
  });

  it('lets any other error through', () => {
    const env = new Proxy(
      {},
      {
        get() {
          throw new RangeError('environment unreadable');
        },
      },
    );
    expect(() => loadConfigOrReport(env, 'all', { write: () => undefined })).toThrow('environment unreadable');
  });
});
