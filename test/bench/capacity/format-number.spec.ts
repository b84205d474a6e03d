import { formatNumber } from './format-number';

describe('a number as docs/capacity.md writes it', () => {
  it('writes whole numbers as they are below 10,000 and with thousands separated from there', () => {
    expect(formatNumber(0)).toBe('0');
    expect(formatNumber(4)).toBe('4');
    expect(formatNumber(3947)).toBe('3947');
    expect(formatNumber(9999)).toBe('9999');
    expect(formatNumber(10_000)).toBe('10,000');
    expect(formatNumber(345_600)).toBe('345,600');
    expect(formatNumber(934_000_000)).toBe('934,000,000');
    expect(formatNumber(-12_345)).toBe('-12,345');
  });

  it('writes decimals as the benchmark rounded them, to 6 significant digits at most', () => {
    expect(formatNumber(0.39)).toBe('0.39');
    expect(formatNumber(43.8)).toBe('43.8');
    expect(formatNumber(190.4)).toBe('190.4');
    expect(formatNumber(0.1 + 0.2)).toBe('0.3');
    expect(formatNumber(2 / 3)).toBe('0.666667');
    expect(formatNumber(-1.25)).toBe('-1.25');
  });

  it('drops the decimals from 1000 on, rounding, and then separates thousands as for whole numbers', () => {
    expect(formatNumber(3455.4)).toBe('3455');
    expect(formatNumber(999.95)).toBe('999.95');
    expect(formatNumber(1249.5)).toBe('1250');
    expect(formatNumber(12_345.6)).toBe('12,346');
  });

  it('writes a figure too small for decimals with an exponent', () => {
    expect(formatNumber(0.0000123)).toBe('1.23e-05');
    expect(formatNumber(0.0001)).toBe('0.0001');
  });

  it('refuses what is not a number to write', () => {
    expect(() => formatNumber(Number.NaN)).toThrow('not a finite number');
    expect(() => formatNumber(Number.POSITIVE_INFINITY)).toThrow('not a finite number');
  });
});
