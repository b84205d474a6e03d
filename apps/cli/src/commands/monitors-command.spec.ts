import { CliStandIn } from '../../../../test/support/cli-stand-in';
import { CliUsageError } from '../errors';
import { paginateOption, updateMonitorBody } from './monitors-command';

const MONITOR = { id: 'mon_1', name: 'catalog', schedule: { every: '1d' }, key: ['products.sku'], paused: false, runs_total: 0 };

/** `gleaner monitors create|update --paginate` against a stand-in service that records each request's method, path and body. */
describe('gleaner monitors: paginate', () => {
  const service = new CliStandIn(({ body }) => {
    const paginate = body?.paginate ? { max_pages: 5, ...body.paginate } : null;
    return { ...MONITOR, ...body, paginate, consecutive_failures: 0, records: 0 };
  });
  const { seen, authorizations: keys } = service;
  const gleaner = (args: string[]) => service.gleaner(args);

  beforeAll(() => service.start());
  afterAll(() => service.stop());
  beforeEach(() => service.clear());

  const create = ['monitors', 'create', 'https://shop.example/catalog', '--name', 'catalog', '--every', '1d'];
  const schema = ['--schema', '{"products": [{"sku": "string", "price": "number"}]}', '--key-field', 'products.sku'];

  it("create sends --paginate and --paginate-max-pages as the body's paginate, and shows it", async () => {
    const run = await gleaner([...create, ...schema, '--paginate', 'li.next > a', '--paginate-max-pages', '10']);
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(run.stdout).toMatch(/^paginate\s+li\.next > a \(10 pages at most\)$/m);
    // Without --paginate-max-pages the service's default applies.
    expect((await gleaner([...create, ...schema, '--paginate', 'a.next'])).code).toBe(0);
    // Without --paginate the field is left out.
    expect((await gleaner([...create, ...schema])).code).toBe(0);
    expect(seen.map((s) => [s.method, s.path])).toEqual(Array(3).fill(['POST', '/api/v1/monitors']));
    expect(seen[0].body).toMatchObject({ key: ['products.sku'], paginate: { selector: 'li.next > a', max_pages: 10 } });
    expect(seen[1].body.paginate).toEqual({ selector: 'a.next' });
    expect(seen[2].body).not.toHaveProperty('paginate');
    // --key-field is the monitor's key; the API key stays the environment's (the program's --key is the API key).
    expect(keys).toEqual(Array(3).fill(`Bearer glk_${'a'.repeat(40)}`));
  });

  it('update sends only what is given: --paginate replaces it, --no-paginate sends null', async () => {
    expect((await gleaner(['monitors', 'update', 'mon_1', '--paginate', 'a[rel=next]', '--paginate-max-pages', '3'])).code).toBe(0);
    const off = await gleaner(['monitors', 'update', 'mon_1', '--no-paginate']);
    expect([off.code, off.stderr]).toEqual([0, '']);
    expect(off.stdout).not.toMatch(/^paginate/m);
    expect((await gleaner(['monitors', 'update', 'mon_1', '--name', 'renamed', '--cron', '0 6 * * *', '--json'])).code).toBe(0);
    expect(seen).toEqual([
      { method: 'PUT', path: '/api/v1/monitors/mon_1', body: { paginate: { selector: 'a[rel=next]', max_pages: 3 } } },
      { method: 'PUT', path: '/api/v1/monitors/mon_1', body: { paginate: null } },
      { method: 'PUT', path: '/api/v1/monitors/mon_1', body: { name: 'renamed', schedule: { cron: '0 6 * * *' } } },
    ]);
  });

  it('refuses --paginate-max-pages alone, with --no-paginate, and an empty update (exit 2), sending nothing', async () => {
    for (const args of [
      [...create, ...schema, '--paginate-max-pages', '3'],
      ['monitors', 'update', 'mon_1', '--no-paginate', '--paginate-max-pages', '3'],
      ['monitors', 'update', 'mon_1'],
      ['monitors', 'update', 'mon_1', '--paginate-max-pages', '0'],
    ]) {
      const run = await gleaner(args);
      expect([args.join(' '), run.code]).toEqual([args.join(' '), 2]);
      expect(run.stderr).toMatch(/goes with --paginate|not both|nothing to update|--paginate-max-pages/);
    }
    expect(seen).toEqual([]);
  });

  it('builds the bodies without a service too', () => {
    expect(paginateOption({})).toBeUndefined();
    expect(paginateOption({ paginate: false })).toBeNull();
    expect(paginateOption({ paginate: '.next a', paginateMaxPages: 20 })).toEqual({ selector: '.next a', max_pages: 20 });
    expect(updateMonitorBody({ every: '6h', keyField: ['items.sku'] })).toEqual({ schedule: { every: '6h' }, key: ['items.sku'] });
    expect(() => updateMonitorBody({ every: '6h', cron: '* * * * *' })).toThrow(CliUsageError);
    expect(() => updateMonitorBody({ timezone: 'Europe/Paris' })).toThrow(CliUsageError);
  });
});
