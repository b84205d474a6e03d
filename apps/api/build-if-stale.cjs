#!/usr/bin/env node
/**
 * `npm start` builds only when the sources changed since the last build (README "Quick start"). The build
 * (postbuild) writes a fingerprint of what it was built from into dist/; `npm start` (prestart) compares the
 * sources' fingerprint with it and runs `npm run build` only when they differ or dist/ is incomplete.
 *
 * The fingerprint is a SHA-256 of the content of every file the build reads: the TypeScript and JSON under
 * apps/ and libs/ (not the tests), package.json, package-lock.json, tsconfig*.json and nest-cli.json. Content,
 * not modification times: a checkout, a copy that keeps times, or an edit undone all land where they should.
 * Hashing the ~550 files takes about a tenth of a second; a build takes a minute.
 *
 *   node apps/api/build-if-stale.cjs            build if stale (prestart)
 *   node apps/api/build-if-stale.cjs --write    record the sources as built (postbuild)
 *   node apps/api/build-if-stale.cjs --check    exit 0 when dist/ is up to date, 1 when a build is due (tests)
 */
'use strict';
const { createHash } = require('node:crypto');
const { spawnSync } = require('node:child_process');
const { existsSync, readdirSync, readFileSync, writeFileSync } = require('node:fs');
const { join, relative } = require('node:path');

const ROOT = join(__dirname, '..', '..');
const STAMP = join('dist', '.sources-sha256');
const ROOT_FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'nest-cli.json'];
const SOURCE_DIRS = ['apps', 'libs'];
/** What the build leaves out (tsconfig.build.json's exclude), so editing a test does not rebuild. */
const NOT_BUILT = /\.(spec|int-spec|e2e-spec|test)\.ts$/;
const BUILT = /\.(ts|json)$/;
const OUTPUTS = ['dist/apps/api/src/main.js', 'dist/apps/crawler/src/main.js', 'dist/apps/cli/src/main.js'];

function sourceFiles(root) {
  const files = ROOT_FILES.filter((name) => existsSync(join(root, name)));
  const walk = (dir) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') walk(path);
      } else if (BUILT.test(entry.name) && !NOT_BUILT.test(entry.name)) files.push(path);
    }
  };
  for (const dir of SOURCE_DIRS) if (existsSync(join(root, dir))) walk(dir);
  return files.sort();
}

/** The sources' fingerprint: each built file's path and content. */
function fingerprint(root = ROOT) {
  const hash = createHash('sha256');
  for (const file of sourceFiles(root)) {
    hash.update(relative(root, join(root, file)).split('\\').join('/'));
    hash.update('\0');
    hash.update(readFileSync(join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** Why a build is due, or null when dist/ was built from these very sources. */
function staleReason(root = ROOT) {
  const missing = OUTPUTS.find((output) => !existsSync(join(root, output)));
  if (missing) return `${missing} is missing`;
  const stamp = join(root, STAMP);
  if (!existsSync(stamp)) return 'dist/ has no record of its sources (built before this check existed, or the build failed)';
  return readFileSync(stamp, 'utf8').trim() === fingerprint(root) ? null : 'the sources changed since the last build';
}

function writeStamp(root = ROOT) {
  writeFileSync(join(root, STAMP), `${fingerprint(root)}\n`);
}

function main(argv) {
  if (argv.includes('--write')) {
    writeStamp();
    return 0;
  }
  const reason = staleReason();
  if (argv.includes('--check')) {
    process.stdout.write(reason ? `stale: ${reason}\n` : 'up to date\n');
    return reason ? 1 : 0;
  }
  if (!reason) {
    process.stdout.write('dist/ is up to date with the sources: starting without a build (npm run build forces one).\n');
    return 0;
  }
  process.stdout.write(`Building: ${reason}.\n`);
  const npm = process.env.npm_execpath;
  const build = npm
    ? spawnSync(process.execPath, [npm, 'run', 'build'], { cwd: ROOT, stdio: 'inherit' })
    : spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit', shell: process.platform === 'win32' });
  return build.status ?? 1;
}

module.exports = { fingerprint, staleReason, writeStamp, sourceFiles };

if (require.main === module) process.exit(main(process.argv.slice(2)));
