import { readFileSync, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { parse as parseYaml } from 'yaml';
import { CliUsageError } from './errors';

/**
 * `--schema`: a file path (JSON or YAML text), `-` for stdin, or the schema itself inline (JSON or
 * YAML). Parsed here so a typo is reported before anything is sent; the service then checks the
 * schema language itself (422 with the failing fields). Resolves to the parsed object.
 */
export async function readSchemaOption(value: string, stdin: Readable): Promise<Record<string, unknown> | unknown[]> {
  let text: string;
  let source: string;
  if (value === '-') {
    text = await readAll(stdin);
    source = 'stdin';
  } else if (isFile(value)) {
    try {
      text = readFileSync(value, 'utf8');
    } catch (error) {
      throw new CliUsageError(`--schema: cannot read ${value}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    source = value;
  } else {
    if (looksLikePath(value))
      throw new CliUsageError(`--schema: no such file "${value}" (give a file, "-" for stdin, or the schema inline as JSON or YAML)`);
    text = value;
    source = 'inline';
  }
  const parsed = parseSchemaText(text, source);
  if (parsed === null || typeof parsed !== 'object') {
    throw new CliUsageError(
      source === 'inline'
        ? `--schema: "${value}" is not a file, and not a JSON or YAML schema (an object like {"title": "string"} or a field list)`
        : `--schema: ${source} holds ${parsed === null ? 'nothing' : `a ${typeof parsed}`}, not a schema object`,
    );
  }
  return parsed as Record<string, unknown> | unknown[];
}

function parseSchemaText(text: string, source: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // Not JSON: YAML (a superset of JSON, so its message is the useful one).
  }
  try {
    return parseYaml(text, { prettyErrors: true });
  } catch (error) {
    const message = (error as Error).message.split('\n')[0].replace(/:$/, '');
    throw new CliUsageError(
      `--schema: ${source === 'inline' ? 'the inline schema' : source} is neither valid JSON nor valid YAML: ${message}`,
    );
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** One line, no structure characters, and a schema-file ending or a path separator. */
function looksLikePath(value: string): boolean {
  if (/[\n{}[\]:]/.test(value)) return false;
  return /\.(json|ya?ml)$/i.test(value) || value.includes('/');
}

export async function readAll(stream: Readable): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
  return text;
}
