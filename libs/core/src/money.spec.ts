import { roundUsd } from './money';

describe('roundUsd (money to 1e-8 USD)', () => {
  it('hides float noise and keeps eight decimals', () => {
    expect(roundUsd(0.1 + 0.2)).toBe(0.3);
    expect(roundUsd(1 / 3)).toBe(0.33333333);
    expect(roundUsd(0.008755)).toBe(0.008755);
  });

  it('drops what is below 1e-8 USD (half a unit rounds up)', () => {
    expect(roundUsd(4e-9)).toBe(0);
    expect(roundUsd(6e-9)).toBe(1e-8);
    expect(roundUsd(1.234567891)).toBe(1.23456789);
  });
});
