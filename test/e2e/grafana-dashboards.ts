/**
 * The shipped Grafana dashboards as data, and their queries as Grafana would send them to Prometheus:
 * `$__interval`, `$__rate_interval`, `$__range` computed the way Grafana computes them, and template
 * variables formatted the way Grafana's Prometheus datasource formats them (regex-escaped values, a
 * multi-value selection as `(a|b)`, "All" as the variable's allValue).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export const DASHBOARD_DIR = join(__dirname, '..', '..', 'grafana', 'dashboards');

export interface DashboardTarget {
  refId: string;
  expr: string;
  instant: boolean;
  datasourceUid?: string;
}

export interface DashboardPanel {
  dashboard: string;
  title: string;
  type: string;
  datasourceUid?: string;
  targets: DashboardTarget[];
}

export interface DashboardVariable {
  name: string;
  query: string;
  multi: boolean;
  includeAll: boolean;
  allValue?: string;
  current: string | string[];
}

export interface Dashboard {
  file: string;
  title: string;
  panels: DashboardPanel[];
  variables: DashboardVariable[];
}

interface RawPanel {
  type: string;
  title: string;
  datasource?: { uid?: string };
  targets?: Array<{ refId: string; expr: string; instant?: boolean; datasource?: { uid?: string } }>;
  panels?: RawPanel[];
}

/** The dashboards of `dir` (the repository's by default; the swarm test's driver reads its copy). */
export function loadDashboards(dir = DASHBOARD_DIR): Dashboard[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => {
      const raw = JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
        title: string;
        panels: RawPanel[];
        templating?: { list: Array<Record<string, any>> };
      };
      const panels: DashboardPanel[] = [];
      const walk = (list: RawPanel[]) => {
        for (const p of list) {
          if (p.type !== 'row') {
            panels.push({
              dashboard: raw.title,
              title: p.title,
              type: p.type,
              datasourceUid: p.datasource?.uid,
              targets: (p.targets ?? []).map((t) => ({
                refId: t.refId,
                expr: t.expr,
                instant: t.instant === true,
                datasourceUid: t.datasource?.uid,
              })),
            });
          }
          if (p.panels) walk(p.panels);
        }
      };
      walk(raw.panels);
      const variables = (raw.templating?.list ?? []).map((v) => ({
        name: v.name as string,
        query: (typeof v.query === 'string' ? v.query : v.query?.query) as string,
        multi: v.multi === true,
        includeAll: v.includeAll === true,
        allValue: v.allValue as string | undefined,
        current: v.current?.value as string | string[],
      }));
      return { file, title: raw.title, panels, variables };
    });
}

/** Grafana's rangeutil.roundInterval (ms). */
export function roundInterval(ms: number): number {
  const table: Array<[number, number]> = [
    [15, 10],
    [35, 20],
    [75, 50],
    [150, 100],
    [350, 200],
    [750, 500],
    [1500, 1000],
    [3500, 2000],
    [7500, 5000],
    [12500, 10000],
    [17500, 15000],
    [25000, 20000],
    [45000, 30000],
    [90000, 60000],
    [210000, 120000],
    [450000, 300000],
    [750000, 600000],
    [1050000, 900000],
    [1500000, 1200000],
    [2700000, 1800000],
    [5400000, 3600000],
    [9000000, 7200000],
    [16200000, 10800000],
    [32400000, 21600000],
    [86400000, 43200000],
  ];
  for (const [below, value] of table) if (ms < below) return value;
  return 86400000;
}

export interface QueryTiming {
  /** Dashboard time range, seconds since epoch. */
  from: number;
  to: number;
  /** The datasource's scrape interval ("timeInterval"), seconds: Grafana's lower limit for $__interval. */
  scrapeIntervalS: number;
  /** Data points Grafana asks for (the panel's width in pixels). */
  maxDataPoints?: number;
}

export interface TimeMacros {
  intervalMs: number;
  rateIntervalMs: number;
  rangeS: number;
}

export function timeMacros(t: QueryTiming): TimeMacros {
  const rangeMs = (t.to - t.from) * 1000;
  const intervalMs = Math.max(roundInterval(rangeMs / (t.maxDataPoints ?? 1000)), t.scrapeIntervalS * 1000);
  // Grafana: $__rate_interval = max($__interval + scrape interval, 4 × scrape interval).
  const rateIntervalMs = Math.max(intervalMs + t.scrapeIntervalS * 1000, 4 * t.scrapeIntervalS * 1000);
  return { intervalMs, rateIntervalMs, rangeS: Math.round(rangeMs / 1000) };
}

/** Grafana's prometheusSpecialRegexEscape: the value as a literal inside a PromQL regex string. */
export function regexEscape(value: string): string {
  return value.replace(/\\/g, '\\\\\\\\').replace(/[$^*{}[\]'+?.()|]/g, '\\\\$&');
}

/** What Grafana's Prometheus datasource puts in place of `$name` for this selection. */
export function formatVariable(variable: DashboardVariable, selection: string[], all: boolean): string {
  if (all && variable.allValue !== undefined) return variable.allValue;
  if (!variable.multi && !variable.includeAll) return selection[0].replace(/\\/g, '\\\\').replace(/'/g, "\\\\'");
  const escaped = selection.map(regexEscape);
  return escaped.length === 1 ? escaped[0] : `(${escaped.join('|')})`;
}

/** Substitutes time macros and template variables (longest names first, `$x` and `${x}` forms). */
export function interpolate(expr: string, macros: TimeMacros, values: Record<string, string>): string {
  const all: Record<string, string> = {
    __rate_interval: `${macros.rateIntervalMs}ms`,
    __interval_ms: String(macros.intervalMs),
    __interval: `${macros.intervalMs}ms`,
    __range_s: String(macros.rangeS),
    __range_ms: String(macros.rangeS * 1000),
    __range: `${macros.rangeS}s`,
    ...values,
  };
  const names = Object.keys(all).sort((a, b) => b.length - a.length);
  let out = expr;
  for (const name of names) {
    out = out.split(`\${${name}}`).join(all[name]);
    out = out.replace(new RegExp(`\\$${name}(?![A-Za-z0-9_])`, 'g'), () => all[name]);
  }
  return out;
}

/** `label_values(<selector>, <label>)` → [selector, label]. */
export function parseLabelValues(query: string): { match: string; label: string } {
  const m = /^label_values\((.*),\s*([a-zA-Z_][a-zA-Z0-9_]*)\)$/.exec(query.trim());
  if (!m) throw new Error(`unsupported variable query: ${query}`);
  return { match: m[1], label: m[2] };
}

const KEYWORDS = new Set(['by', 'without', 'and', 'or', 'unless', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'offset']);

/**
 * The vector selectors of a PromQL expression (`name{matchers}` or a bare `name`), with the template
 * variables already substituted: each is what a panel or an alert reads from the TSDB.
 */
export function selectors(expr: string): string[] {
  const found = new Set<string>();
  let i = 0;
  const n = expr.length;
  while (i < n) {
    const c = expr[i];
    if (c === '"' || c === "'" || c === '`') {
      // skip a string literal outside a selector
      const quote = c;
      i++;
      while (i < n && expr[i] !== quote) i += expr[i] === '\\' ? 2 : 1;
      i++;
      continue;
    }
    if (c === '[') {
      i = expr.indexOf(']', i) + 1;
      continue;
    }
    if (/[a-zA-Z_:]/.test(c)) {
      let j = i;
      while (j < n && /[a-zA-Z0-9_:]/.test(expr[j])) j++;
      const name = expr.slice(i, j);
      let k = j;
      while (k < n && expr[k] === ' ') k++;
      if (KEYWORDS.has(name)) {
        // `by (a, b)` and friends: skip the label list
        if (expr[k] === '(' && name !== 'bool' && name !== 'offset') k = expr.indexOf(')', k) + 1;
        i = k;
        continue;
      }
      if (expr[k] === '(' || /^(by|without)\b/.test(expr.slice(k))) {
        i = k; // a function call or an aggregation
        continue;
      }
      if (expr[k] === '{') {
        let m = k + 1;
        while (m < n && expr[m] !== '}') {
          if (expr[m] === '"') {
            m++;
            while (m < n && expr[m] !== '"') m += expr[m] === '\\' ? 2 : 1;
          }
          m++;
        }
        found.add(`${name}${expr.slice(k, m + 1)}`);
        i = m + 1;
        continue;
      }
      const before = expr.slice(0, i).trimEnd();
      if (!/[0-9.]$/.test(before)) found.add(name);
      i = j;
      continue;
    }
    if (c === '{') {
      // a selector without a name: {__name__=...}
      const end = expr.indexOf('}', i);
      found.add(expr.slice(i, end + 1));
      i = end + 1;
      continue;
    }
    i++;
  }
  return [...found];
}
