import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { transformFileSync } from '@swc/core';

const ROOT = join(__dirname, '..', '..');
/** The compiled test app, outside dist/ so that no production build holds it (gitignored). */
export const TEST_APP_DIR = join(ROOT, '.test-build', 'test-app');
export const TEST_API_MAIN = join(TEST_APP_DIR, 'api-main.js');
export const TEST_CRAWLER_MAIN = join(TEST_APP_DIR, 'crawler-main.js');

/**
 * Compiles test/test-app for child processes, against the built app: `@app/<lib>` becomes
 * dist/libs/<lib>/src, so the test app and the production app share one copy of every module (one
 * Nest class per token). Same compiler and decorator options as the jest transform (jest.config.js),
 * file by file without type checking (`npm run typecheck` covers these files): tens of milliseconds.
 */
export function buildTestApp(): void {
  mkdirSync(TEST_APP_DIR, { recursive: true });
  const sources = join(ROOT, 'test', 'test-app');
  for (const file of readdirSync(sources)) {
    if (!file.endsWith('.ts') || file.endsWith('.spec.ts') || file === 'build.ts') continue;
    const out = join(TEST_APP_DIR, file.replace(/\.ts$/, '.js'));
    const { code } = transformFileSync(join(sources, file), {
      // Paths are resolved from the output's place: .test-build/test-app sits as deep as test/test-app.
      filename: out.replace(/\.js$/, '.ts'),
      swcrc: false,
      jsc: {
        parser: { syntax: 'typescript', decorators: true },
        transform: { legacyDecorator: true, decoratorMetadata: true },
        target: 'es2022',
        keepClassNames: true,
        baseUrl: ROOT,
        paths: { '@app/*': ['dist/libs/*/src'] },
      },
      module: { type: 'commonjs' },
    });
    // Unchanged output is left alone, and new output replaces the old file in one rename: another run
    // (the chaos soak beside the tests in CI) may be starting a process from these files right now.
    if (existsSync(out) && readFileSync(out, 'utf8') === code) continue;
    writeFileSync(`${out}.${process.pid}.tmp`, code);
    renameSync(`${out}.${process.pid}.tmp`, out);
  }
}
