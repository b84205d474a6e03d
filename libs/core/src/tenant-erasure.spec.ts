import { TenantErasers, type TenantEraser, type TenantErasurePhase } from './tenant-erasure';

const eraser = (name: string, phase: TenantErasurePhase): TenantEraser => ({ name, phase, run: async () => 0 });

describe('TenantErasers', () => {
  it('orders erasers by phase (schedules, jobs, data), then by registration', () => {
    const erasers = new TenantErasers();
    for (const e of [eraser('sites', 'data'), eraser('cancel', 'jobs'), eraser('jobs', 'data'), eraser('monitors', 'schedules')])
      erasers.register(e);
    expect(erasers.inOrder().map((e) => e.name)).toEqual(['monitors', 'cancel', 'sites', 'jobs']);
  });

  it('refuses a name registered twice (its records would be counted as one)', () => {
    const erasers = new TenantErasers();
    erasers.register(eraser('sites', 'data'));
    expect(() => erasers.register(eraser('sites', 'schedules'))).toThrow(/registered twice/);
  });
});
