/** Costs are kept to 1e-8 USD: sums of many small floats would otherwise show their rounding noise. */
export function roundUsd(usd: number): number {
  return Math.round(usd * 1e8) / 1e8;
}
