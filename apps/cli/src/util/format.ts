/** Number, money, duration and table formatting for people (the --json output never uses these). */

export function formatInt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** 950 → "950", 15_200 → "15.2k", 3_400_000 → "3.4M". */
export function formatCompact(n: number): string {
  if (n < 1000) return String(Math.round(n));
  if (n < 1_000_000) return `${trimZero((n / 1000).toFixed(n < 10_000 ? 2 : 1))}k`;
  return `${trimZero((n / 1_000_000).toFixed(n < 10_000_000 ? 2 : 1))}M`;
}

/** USD with enough digits to show small per-page costs: $0.000289, $0.0123, $1.25, $120.40. */
export function formatUsd(n: number): string {
  if (n === 0) return '$0';
  if (n < 0.01) return `$${n.toPrecision(3).replace(/0+$/, '').replace(/\.$/, '')}`;
  if (n < 1) return `$${n.toFixed(4)}`;
  return `$${n.toFixed(2)}`;
}

/** 7 → "0:07", 125 → "2:05", 3725 → "1:02:05" (seconds). */
export function formatClock(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${rest}` : `${m}:${rest}`;
}

/** 850 → "850 ms", 12_300 → "12.3 s", 125_000 → "2 min 5 s". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${trimZero((ms / 1000).toFixed(1))} s`;
  const total = Math.round(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return h > 0 ? `${h} h ${m} min` : `${m} min ${s} s`;
}

export function formatRate(perSecond: number): string {
  return perSecond >= 10 ? perSecond.toFixed(0) : perSecond.toFixed(1);
}

/** "a 3, b 1" from {a: 3, b: 1}, largest first; `none` when empty. */
export function formatCounts(counts: Record<string, number> | undefined, none = 'none'): string {
  const entries = Object.entries(counts ?? {}).filter(([, n]) => n > 0);
  if (entries.length === 0) return none;
  return entries
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([k, n]) => `${k} ${formatInt(n)}`)
    .join(', ');
}

function trimZero(text: string): string {
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}

export interface Column<Row> {
  header: string;
  value: (row: Row) => string;
  align?: 'left' | 'right';
  /** Colours a cell after padding (so widths are measured on plain text). */
  style?: (text: string, row: Row) => string;
  /** The one column that is cut to fit `maxWidth` (URLs). */
  shrink?: boolean;
}

/**
 * A plain-text table: a header, then one line per row, columns two spaces apart. With `maxWidth`
 * (a terminal's width) the `shrink` column is cut with "…" so lines do not wrap.
 */
export function renderTable<Row>(
  rows: Row[],
  columns: Column<Row>[],
  options: { maxWidth?: number; header?: (s: string) => string } = {},
): string {
  const cells = rows.map((row) => columns.map((c) => c.value(row)));
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((r) => [...r[i]].length)));
  const shrinkIndex = columns.findIndex((c) => c.shrink);
  if (options.maxWidth !== undefined && shrinkIndex >= 0) {
    const others = widths.reduce((sum, w, i) => (i === shrinkIndex ? sum : sum + w + 2), 0);
    widths[shrinkIndex] = Math.max(columns[shrinkIndex].header.length, Math.min(widths[shrinkIndex], options.maxWidth - others - 1));
  }
  const line = (values: string[], row?: Row) =>
    values
      .map((value, i) => {
        const column = columns[i];
        let text = [...value].length > widths[i] ? `${[...value].slice(0, widths[i] - 1).join('')}…` : value;
        const last = i === values.length - 1;
        text = column.align === 'right' ? text.padStart(widths[i]) : last ? text : text.padEnd(widths[i]);
        return row !== undefined && column.style ? column.style(text, row) : text;
      })
      .join('  ');
  const header = line(columns.map((c) => c.header));
  return [options.header ? options.header(header) : header, ...rows.map((row, r) => line(cells[r], row))].join('\n') + '\n';
}
