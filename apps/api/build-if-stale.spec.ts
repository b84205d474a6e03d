import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// A plain CommonJS script (it runs before anything is built): required as it is.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const stale = require('./build-if-stale.cjs') as {
  fingerprint(root: string): string;
  staleReason(root: string): string | null;
  writeStamp(root: string): void;
  sourceFiles(root: string): string[];
};

/** A project tree as the build sees it, built once (dist outputs present, the stamp written). */
function project(): string {
  const root = mkdtempSync(join(tmpdir(), 'gleaner-stale-'));
  const write = (path: string, text: string) => {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  write('package.json', '{"name":"x"}');
  write('tsconfig.json', '{}');
  write('apps/api/src/main.ts', 'export const a = 1;');
  write('libs/core/src/index.ts', 'export const b = 2;');
  write('libs/core/src/data.json', '{"c": 3}');
  write('libs/core/src/index.spec.ts', 'test');
  for (const app of ['api', 'crawler', 'cli']) write(`dist/apps/${app}/src/main.js`, '');
  stale.writeStamp(root);
  return root;
}

describe('npm start builds only when the sources changed (apps/api/build-if-stale.cjs)', () => {
  it('is up to date right after a build', () => {
    expect(stale.staleReason(project())).toBeNull();
  });

  it('reads the built files only: sources and JSON, not the tests', () => {
    expect(stale.sourceFiles(project())).toEqual([
      'apps/api/src/main.ts',
      'libs/core/src/data.json',
      'libs/core/src/index.ts',
      'package.json',
      'tsconfig.json',
    ]);
  });

  it.each([
    ['a source edited', (root: string) => writeFileSync(join(root, 'libs/core/src/index.ts'), 'export const b = 3;')],
    ['a source added', (root: string) => writeFileSync(join(root, 'libs/core/src/more.ts'), 'export {};')],
    ['a source deleted', (root: string) => rmSync(join(root, 'apps/api/src/main.ts'))],
    ['a dependency changed', (root: string) => writeFileSync(join(root, 'package.json'), '{"name":"y"}')],
    ['a JSON data file changed', (root: string) => writeFileSync(join(root, 'libs/core/src/data.json'), '{"c": 4}')],
  ])('is stale when %s', (_what, change) => {
    const root = project();
    change(root);
    expect(stale.staleReason(root)).toBe('the sources changed since the last build');
  });

  it('is not stale when only a test changed, or a file was rewritten with the same content', () => {
    const root = project();
    writeFileSync(join(root, 'libs/core/src/index.spec.ts'), 'another test');
    writeFileSync(join(root, 'apps/api/src/main.ts'), 'export const a = 1;');
    expect(stale.staleReason(root)).toBeNull();
  });

  it('is stale when an output is missing or the build left no record (a failed build: deleteOutDir emptied dist/)', () => {
    const root = project();
    rmSync(join(root, 'dist/apps/crawler/src/main.js'));
    expect(stale.staleReason(root)).toContain('dist/apps/crawler/src/main.js is missing');
    const again = project();
    rmSync(join(again, 'dist/.sources-sha256'));
    expect(stale.staleReason(again)).toContain('no record');
  });
});
