import { UsageError } from './command';

export interface FlagSpec {
  /** `boolean` flags take no value; `string` flags take the next argument or `--flag=value`. */
  type: 'boolean' | 'string';
}

export type ParsedFlags = Record<string, string | boolean | undefined>;

/** Minimal `--flag value` / `--flag=value` / `--switch` parser; unknown flags and stray arguments are usage errors. */
export function parseFlags(args: string[], spec: Record<string, FlagSpec>): ParsedFlags {
  const flags: ParsedFlags = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith('--')) throw new UsageError(`unexpected argument "${arg}"`);
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    const flag = spec[name];
    if (!flag) throw new UsageError(`unknown option --${name}`);
    if (flag.type === 'boolean') {
      if (eq !== -1) throw new UsageError(`--${name} takes no value`);
      flags[name] = true;
      continue;
    }
    const value = eq !== -1 ? arg.slice(eq + 1) : args[++i];
    if (value === undefined || value === '') throw new UsageError(`--${name} needs a value`);
    flags[name] = value;
  }
  return flags;
}
