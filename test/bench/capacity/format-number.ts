/**
 * How docs/capacity.md writes a number from bench-results/capacity.json: the value as the benchmark rounded
 * it, with no decimals from 1000 on and thousands separated by commas from 10,000 on (the guide's "3947
 * inserts/s" beside "345,600 pages a day"). The benchmark has already rounded every figure to what it
 * means, so decimals are written as they are, to 6 significant digits at most (a float's noise cut off).
 */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) throw new Error(`not a finite number: ${value}`);
  const whole = Math.abs(value) >= 1000 ? Math.round(value) : value;
  if (Number.isInteger(whole)) return Math.abs(whole) >= 10_000 ? groupThousands(whole) : String(whole);
  if (Math.abs(whole) < 1e-4) return exponential(whole);
  return String(Number(whole.toPrecision(6)));
}

function groupThousands(value: number): string {
  const digits = String(Math.abs(value)).replace(/\B(?=(\d{3})+$)/g, ',');
  return value < 0 ? `-${digits}` : digits;
}

/** 0.0000123 → "1.23e-05" (printf's `%g`), for a figure too small to read in decimals. */
function exponential(value: number): string {
  const [mantissa, exponent] = value.toExponential(5).split('e');
  const digits = mantissa.replace(/\.?0+$/, '');
  const power = Number(exponent);
  return `${digits}e${power < 0 ? '-' : '+'}${String(Math.abs(power)).padStart(2, '0')}`;
}
