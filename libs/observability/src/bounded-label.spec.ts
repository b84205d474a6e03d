import { Metrics } from './metrics';
import { BoundedLabel } from './bounded-label';

describe('BoundedLabel', () => {
  it('keeps the first N values and reports every later one as other', () => {
    const label = new BoundedLabel(3);
    const seen = Array.from({ length: 1000 }, (_, i) => label.label(`host-${i % 500}.example`));
    expect(new Set(seen)).toEqual(new Set(['host-0.example', 'host-1.example', 'host-2.example', 'other']));
    expect(label.label('host-1.example')).toBe('host-1.example');
  });

  it('never lets a value literally named other take a named slot', () => {
    const label = new BoundedLabel(1);
    expect(label.label('other')).toBe('other');
    expect(label.label('a')).toBe('a');
  });

  it('is shared per key on a process registry', () => {
    const metrics = new Metrics('test');
    const a = metrics.boundedLabel('x', 1);
    expect(metrics.boundedLabel('x', 1)).toBe(a);
    expect(a.label('one')).toBe('one');
    expect(metrics.boundedLabel('x', 1).label('two')).toBe('other');
  });

  it('exports the auth failure reasons at 0 from the start', async () => {
    const text = await new Metrics('test').render();
    for (const reason of ['missing', 'malformed', 'unknown', 'revoked', 'expired']) {
      expect(text).toContain(`gleaner_auth_failures_total{reason="${reason}",role="test"} 0`);
    }
  });
});
