/**
 * A clean `npm install` prints nothing alarming (issue 40, item 3; README "Quick start" says what is hidden
 * and why): every dependency with an install script is declared allowed or denied in package.json
 * `allowScripts` (npm warns about undeclared ones and means to block them), only the pinned Node's is
 * allowed, and .npmrc turns down npm's warnings about engines it checks against the wrong Node.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  allowScripts?: Record<string, boolean>;
  devDependencies: Record<string, string>;
};
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; hasInstallScript?: boolean }>;
};

/** The packages of the lock file that run an install script, by name. */
const withScripts = Object.entries(lock.packages)
  .filter(([, entry]) => entry.hasInstallScript)
  .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));

describe('a clean npm install', () => {
  it('declares every install script of the dependencies in allowScripts', () => {
    expect(withScripts.length).toBeGreaterThan(0);
    const declared = pkg.allowScripts ?? {};
    expect(withScripts.filter((name) => declared[name] === undefined)).toEqual([]);
    // Nothing declared that is not installed (npm install-scripts prune would drop it).
    expect(Object.keys(declared).filter((name) => !withScripts.includes(name))).toEqual([]);
  });

  it('allows only the pinned Node’s install script (it fetches the Node 24 the scripts run on)', () => {
    expect(Object.entries(pkg.allowScripts ?? {}).filter(([, allowed]) => allowed)).toEqual([['node', true]]);
    expect(pkg.devDependencies.node).toMatch(/^24\./);
  });

  it('shows npm errors only (.npmrc), not its warnings about engines checked against the system Node', () => {
    const settings = readFileSync(join(ROOT, '.npmrc'), 'utf8')
      .split('\n')
      .filter((line) => line.trim() && !line.startsWith('#'));
    expect(settings).toEqual(['loglevel=error']);
  });
});
