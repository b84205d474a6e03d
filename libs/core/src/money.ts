/**
 * The one rounding of money: costs are kept and answered to 1e-8 USD (docs/api.md "Jobs"), so sums of many small
 * floats do not show their rounding noise. The price table, the model router and every answer round with it.
 */
export function roundUsd(usd: number): number {
  return Math.round(usd * 1e8) / 1e8;
}
