import { join } from 'node:path';
import { pinnedNode } from './pinned-node';

describe('pinnedNode', () => {
  const root = join('/', 'srv', 'gleaner');
  const cliDir = join(root, 'dist', 'apps', 'cli', 'src');
  const pinned = join(root, 'node_modules', 'node', 'bin', 'node');

  it('keeps a Node that is new enough', () => {
    expect(pinnedNode('24.9.0', cliDir, () => false)).toEqual({ kind: 'current' });
    expect(pinnedNode('25.1.0', cliDir, () => false)).toEqual({ kind: 'current' });
  });

  it('switches an older Node for the project’s pinned one, found upwards from the CLI', () => {
    expect(pinnedNode('20.20.2', cliDir, (path) => path === pinned)).toEqual({ kind: 'switch', node: pinned });
  });

  it('says what to do when there is no pinned Node', () => {
    const choice = pinnedNode('20.20.2', cliDir, () => false);
    expect(choice).toEqual({ kind: 'missing', message: expect.stringContaining('run `npm install` in the project') });
  });
});
