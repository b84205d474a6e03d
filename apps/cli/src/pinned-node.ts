import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The Node major the project pins (package.json `engines` and the `node` devDependency). */
export const REQUIRED_NODE_MAJOR = 24;

export type NodeChoice =
  | { kind: 'current' }
  /** Run the CLI under this binary instead: the project's pinned Node. */
  | { kind: 'switch'; node: string }
  | { kind: 'missing'; message: string };

/**
 * Which Node should run the CLI. The current one when it is new enough; else the pinned one that
 * `npm install` put in the project's node_modules (found upwards from the CLI's own, real, directory: a
 * `npm link` symlink resolves to the project); else a message saying what to do.
 */
export function pinnedNode(version: string, fromDir: string, exists: (path: string) => boolean = existsSync): NodeChoice {
  const major = Number(version.split('.')[0]);
  if (major >= REQUIRED_NODE_MAJOR) return { kind: 'current' };
  let dir = fromDir;
  for (let i = 0; i < 6; i++) {
    const candidate = join(dir, 'node_modules', 'node', 'bin', 'node');
    if (exists(candidate)) return { kind: 'switch', node: candidate };
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return {
    kind: 'missing',
    message: `needs Node.js ${REQUIRED_NODE_MAJOR} (this is ${version}): run \`npm install\` in the project (it fetches the pinned Node), or install Node.js ${REQUIRED_NODE_MAJOR}.`,
  };
}
