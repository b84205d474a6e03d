import { createColors } from 'picocolors';

export type Colors = ReturnType<typeof createColors>;

/**
 * Whether to colour what goes to one stream: never with NO_COLOR (any non-empty value, see
 * no-color.org) or `--no-color`; always with FORCE_COLOR (other than 0/false); otherwise only on a
 * terminal that is not "dumb". Decided per stream, so `gleaner … > file` on a terminal colours
 * stderr and not the file.
 */
export function colorEnabled(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv, flag: boolean): boolean {
  if (!flag) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '' && force !== '0' && force !== 'false') return true;
  if (force === '0' || force === 'false') return false;
  return stream.isTTY === true && env.TERM !== 'dumb';
}

export function colorsFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv, flag: boolean): Colors {
  return createColors(colorEnabled(stream, env, flag));
}
