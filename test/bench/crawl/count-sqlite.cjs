/**
 * Benchmark instrumentation, preloaded into an embedded app with `--require` (never in a timed run):
 * counts the SQLite statements the process runs (node:sqlite), the time spent in them and the bytes bound
 * to them and read back (strings as UTF-8, blobs, numbers as 8), per statement
 * kind and table (transactions: BEGIN / COMMIT) and per calling Gleaner method (the first stack frame
 * outside the storage lib), and writes them to $BENCH_SQL_COUNTS_FILE every second and at exit.
 * Production code is untouched: this wraps node:sqlite's prototypes in this one process only.
 */
'use strict';
const { writeFileSync } = require('node:fs');
const sqlite = require('node:sqlite');

const file = process.env.BENCH_SQL_COUNTS_FILE;
const counts = new Map();
let commits = 0;

function kind(sql) {
  const s = sql.trim();
  const verb = s.split(/\s+/, 1)[0].toUpperCase();
  const table = /"c_([a-z0-9_]+)"/i.exec(s)?.[1] ?? '-';
  let detail = '';
  if (verb === 'SELECT') detail = /count\(\*\)/i.test(s) ? ' count' : '';
  return `${verb}${detail} ${table}`;
}

const micros = new Map();
const callers = new Map();

/** The Gleaner method that asked for the statement: the first stack frame in a lib other than storage. */
function caller() {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 20;
  const stack = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  for (const line of stack.split('\n')) {
    if (!line.includes('/dist/libs/') || line.includes('/libs/storage/')) continue;
    const m = /at (?:async )?([^\s(]+)/.exec(line);
    return m ? m[1] : '?';
  }
  return '(other)';
}

const bytesIn = new Map();
const bytesOut = new Map();

/** Bytes of a bound value or a row: strings as UTF-8, blobs as their length, numbers as 8. */
function size(value) {
  if (value === null || value === undefined) return 0;
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number' || typeof value === 'bigint') return 8;
  if (ArrayBuffer.isView(value)) return value.byteLength;
  if (Array.isArray(value)) return value.reduce((a, v) => a + size(v), 0);
  if (typeof value === 'object') return Object.values(value).reduce((a, v) => a + size(v), 0);
  return 0;
}

function addBytes(map, key, n) {
  if (n > 0) map.set(key, (map.get(key) ?? 0) + n);
}

function bump(key, startedNs, by) {
  const us = Number(process.hrtime.bigint() - startedNs) / 1000;
  counts.set(key, (counts.get(key) ?? 0) + 1);
  micros.set(key, (micros.get(key) ?? 0) + us);
  if (by) {
    const c = callers.get(by) ?? { n: 0, us: 0, kinds: new Set() };
    c.n++;
    c.us += us;
    c.kinds.add(key);
    callers.set(by, c);
  }
}

for (const method of ['run', 'get', 'all', 'iterate']) {
  const original = sqlite.StatementSync.prototype[method];
  sqlite.StatementSync.prototype[method] = function (...args) {
    const sql = this.sourceSQL;
    const control = /^\s*(BEGIN|COMMIT|ROLLBACK)/i.exec(sql)?.[1]?.toUpperCase();
    // Transaction control as prepared statements (BEGIN IMMEDIATE / COMMIT) counts like exec() below.
    const by = control ? undefined : caller();
    if (control === 'COMMIT') commits++;
    const started = process.hrtime.bigint();
    const key = control ? sql.trim().toUpperCase() : kind(sql);
    let out;
    try {
      out = original.apply(this, args);
      return out;
    } finally {
      bump(key, started, by);
      addBytes(bytesIn, key, size(args));
      if (method === 'get' || method === 'all') addBytes(bytesOut, key, size(out));
    }
  };
}
const exec = sqlite.DatabaseSync.prototype.exec;
sqlite.DatabaseSync.prototype.exec = function (sql) {
  const s = String(sql).trim().toUpperCase();
  if (s === 'COMMIT') commits++;
  const started = process.hrtime.bigint();
  try {
    return exec.call(this, sql);
  } finally {
    if (s.startsWith('BEGIN') || s === 'COMMIT' || s === 'ROLLBACK') bump(s, started);
  }
};

function dump() {
  if (!file) return;
  const statements = {};
  for (const [key, n] of counts) {
    statements[key] = {
      n,
      ms: Math.round((micros.get(key) ?? 0) / 100) / 10,
      bytes_in: bytesIn.get(key) ?? 0,
      bytes_out: bytesOut.get(key) ?? 0,
    };
  }
  const byCaller = {};
  for (const [key, c] of [...callers].sort((a, b) => b[1].n - a[1].n)) {
    byCaller[key] = { n: c.n, ms: Math.round(c.us / 100) / 10, statements: [...c.kinds] };
  }
  writeFileSync(file, JSON.stringify({ at: Date.now(), commits, statements, callers: byCaller }));
}
if (file) {
  setInterval(dump, 1000).unref();
  process.on('exit', dump);
}
