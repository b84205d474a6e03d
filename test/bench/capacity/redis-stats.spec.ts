import { Redis } from 'ioredis';
import { describeWith, serverUrl } from '../../harness/require-server';
import { RedisStats, parseInfo } from './redis-stats';

describe('reading Redis INFO for the capacity benchmark', () => {
  it('takes calls per command, network bytes and CPU from an INFO text', () => {
    const info = [
      '# Stats',
      'total_net_input_bytes:1000',
      'total_net_output_bytes:2500',
      '# CPU',
      'used_cpu_sys:1.5',
      'used_cpu_user:2.25',
      '# Commandstats',
      'cmdstat_get:calls=7,usec=10,usec_per_call=1.43,rejected_calls=0,failed_calls=0',
      'cmdstat_evalsha:calls=3,usec=90,usec_per_call=30.00,rejected_calls=0,failed_calls=0',
    ].join('\r\n');
    expect(parseInfo(info)).toEqual({ calls: { get: 7, evalsha: 3 }, net_input_bytes: 1000, net_output_bytes: 2500, cpu_s: 3.75 });
  });

  it('diffs two snapshots, without the reader’s own INFO call', () => {
    const before = { calls: { get: 1, info: 4 }, net_input_bytes: 10, net_output_bytes: 20, cpu_s: 1 };
    const after = { calls: { get: 4, info: 5, evalsha: 2, hset: 2 }, net_input_bytes: 110, net_output_bytes: 220, cpu_s: 1.25 };
    expect(RedisStats.diff(after, before)).toEqual({
      calls: { get: 3, evalsha: 2, hset: 2 },
      total_calls: 7,
      script_calls: 2,
      net_input_bytes: 100,
      net_output_bytes: 200,
      cpu_s: 0.25,
    });
  });
});

describeWith(['redis'], 'RedisStats against a real Redis', () => {
  let stats: RedisStats;
  let client: Redis;

  beforeAll(() => {
    stats = new RedisStats(serverUrl('redis')!);
    client = new Redis(serverUrl('redis')!);
  });

  afterAll(async () => {
    await stats.close();
    client.disconnect();
  });

  it('counts a script once as a script call and its inner commands under their names', async () => {
    const before = await stats.snapshot();
    await client.set('capacity-spec-a', '1');
    await client.eval("redis.call('set', KEYS[1], '2'); return redis.call('get', KEYS[1])", 1, 'capacity-spec-b');
    const diff = RedisStats.diff(await stats.snapshot(), before);
    // Other suites may share this Redis: at least what this test sent is counted.
    expect(diff.calls.eval).toBeGreaterThanOrEqual(1);
    expect(diff.calls.set).toBeGreaterThanOrEqual(2);
    expect(diff.calls.get).toBeGreaterThanOrEqual(1);
    expect(diff.script_calls).toBeGreaterThanOrEqual(1);
    expect(diff.net_input_bytes).toBeGreaterThan(0);
  });
});
