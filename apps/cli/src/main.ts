#!/usr/bin/env node
/**
 * `gleaner`: the entry point `npm link` and `npx gleaner` run. It starts under whatever `node` the shell
 * finds; when that one is older than the Node the project pins (the `node` devDependency), it runs the CLI
 * under the pinned one instead (see pinned-node.ts), so `gleaner users` (node:sqlite) works from any shell.
 */
import { spawn } from 'node:child_process';
import { pinnedNode } from './pinned-node';

function runUnder(node: string): void {
  const child = spawn(node, [__filename, ...process.argv.slice(2)], { stdio: 'inherit' });
  // Ctrl-C reaches the child from the terminal; this process only waits for it and passes its end on.
  const ignore = (): void => undefined;
  process.on('SIGINT', ignore);
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  child.on('error', (error) => {
    process.stderr.write(`gleaner: cannot start ${node}: ${error.message}\n`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => process.exit(code ?? (signal === 'SIGINT' ? 130 : 1)));
}

if (require.main === module) {
  const choice = pinnedNode(process.versions.node, __dirname);
  if (choice.kind === 'switch') runUnder(choice.node);
  else if (choice.kind === 'missing') {
    process.stderr.write(`gleaner: ${choice.message}\n`);
    process.exitCode = 1;
  } else {
    void import('./cli-main.js').then(({ main }) =>
      main().catch((error: unknown) => {
        process.stderr.write(`gleaner: ${error instanceof Error ? error.message : String(error)}\n`);
        process.exitCode = 1;
      }),
    );
  }
}
