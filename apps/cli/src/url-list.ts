import { readFileSync } from 'node:fs';
import type { CliContext } from './context';
import { CliUsageError } from './errors';
import { readAll } from './schema-input';

/** A URL list file's text, or stdin's with "-" (gleaner batch, gleaner monitors create --urls). */
export async function readList(ctx: CliContext, file: string): Promise<string> {
  if (file === '-') return readAll(ctx.io.stdin);
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliUsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/** One URL per line; blank lines and `#` comments skipped (the service checks each URL). */
export function parseList(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}
