/**
 * The documents name things the code defines: every variable libs/config reads is in the README's
 * configuration table, every error_category a document names is one of ERROR_CATEGORIES, and the CLI exit
 * codes the documents and `gleaner --help` list are the CLI's (docs/contributing.md "Documents and code agree").
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { envSchema, EXIT_CONFIG } from '@app/config';
import { ERROR_CATEGORIES } from '@app/core';
import { CRAWL_OPTION_DEFAULTS } from '@app/sites';
import { EXIT_USAGE } from '../../apps/cli/src/command';
import { EXIT } from '../../apps/cli/src/exit-codes';
import { PROGRAM_HELP } from '../../apps/cli/src/program';
import { documentPaths } from './doc-examples';
import { categoryClaims, configTableVariables, exitCodeClaims, exitCodeTable } from './doc-facts';

const ROOT = join(__dirname, '..', '..');
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');
const documents = documentPaths(ROOT).map((path) => ({ file: path.slice(ROOT.length + 1), text: readFileSync(path, 'utf8') }));

/** `process.env.X` outside libs/config (test hooks read where they act). */
function directEnvReads(): string[] {
  const names = new Set<string>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.includes('spec')) {
        for (const m of readFileSync(path, 'utf8').matchAll(/process\.env\.([A-Z][A-Z0-9_]*)/g)) names.add(m[1]);
      }
    }
  };
  walk(join(ROOT, 'libs'));
  walk(join(ROOT, 'apps'));
  return [...names];
}

describe('the README configuration table', () => {
  it('lists every variable libs/config reads', () => {
    const listed = configTableVariables(read('README.md'));
    const read_ = Object.keys(envSchema.shape);
    expect(read_.length).toBeGreaterThan(40);
    expect(read_.filter((name) => !listed.has(name))).toEqual([]);
  });

  it('lists no variable the code does not read (libs/config, or a test hook read where it acts)', () => {
    const known = new Set([...Object.keys(envSchema.shape), ...directEnvReads()]);
    expect([...configTableVariables(read('README.md'))].filter((name) => !known.has(name))).toEqual([]);
  });
});

describe('error categories named in the documents', () => {
  const claims = documents.flatMap((doc) => categoryClaims(doc.text).map((claim) => ({ ...claim, file: doc.file })));

  it('finds the documents’ claims (the reading is not vacuous)', () => {
    expect(new Set(claims.map((c) => c.category)).size).toBeGreaterThanOrEqual(15);
  });

  it('are every one an error_category of the code', () => {
    const known = new Set<string>(ERROR_CATEGORIES);
    expect(claims.filter((c) => !known.has(c.category)).map((c) => `${c.file}:${c.line} ${c.category}`)).toEqual([]);
  });

  it('docs/api.md lists every category of the code', () => {
    const listed = new Set(categoryClaims(read('docs/api.md')).map((c) => c.category));
    expect(ERROR_CATEGORIES.filter((c) => !listed.has(c))).toEqual([]);
  });
});

describe('CLI exit codes', () => {
  const apiCodes = Object.values(EXIT).sort((a, b) => a - b);

  it('apps/cli/README.md’s table and `gleaner --help` list exactly the CLI’s codes', () => {
    expect(exitCodeTable(read('apps/cli/README.md'))).toEqual(apiCodes);
    expect(exitCodeTable(PROGRAM_HELP)).toEqual(apiCodes);
  });

  it('every exit code a document names exists (64: convert and users; 78: a service’s bad configuration)', () => {
    const known = new Set<number>([...apiCodes, EXIT_USAGE, EXIT_CONFIG]);
    const claims = documents.flatMap((doc) => exitCodeClaims(doc.text).map((claim) => ({ ...claim, file: doc.file })));
    expect(claims.length).toBeGreaterThanOrEqual(5);
    expect(claims.filter((c) => !known.has(c.code)).map((c) => `${c.file}:${c.line} exit ${c.code}`)).toEqual([]);
  });

  it('the README’s summary names the same codes', () => {
    const summary = /exit codes ((?:\d+ [^/]+\/\s*)+\d+ [a-z]+)/.exec(read('README.md').replace(/\n/g, ' '));
    expect(summary).not.toBeNull();
    const codes = [...summary![1].matchAll(/(?:^|\/\s*)(\d+)\s/g)].map((m) => Number(m[1])).sort((a, b) => a - b);
    expect(codes).toEqual(apiCodes);
  });
});

describe('docs/crawl.md "Options"', () => {
  it('has a row for every crawl option, with its default', () => {
    const section = /^## Options\n([\s\S]*?)(?=^## )/m.exec(read('docs/crawl.md'));
    expect(section).not.toBeNull();
    const rows = new Map<string, string>();
    for (const m of section![1].matchAll(/^\| `([a-z_]+)` \| ([^|]+) \|/gm)) rows.set(m[1], m[2].trim());
    expect([...rows.keys()].sort()).toEqual(Object.keys(CRAWL_OPTION_DEFAULTS).sort());
    for (const [name, value] of Object.entries(CRAWL_OPTION_DEFAULTS)) {
      const shown = rows.get(name)!;
      const expected = value === null ? 'none' : `\`${typeof value === 'string' ? value : JSON.stringify(value)}\``;
      expect({ name, shown }).toEqual({ name, shown: expected });
    }
  });
});
