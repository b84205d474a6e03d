import { isAlias, isMap, isPair, isScalar, isSeq, parseDocument, type Node } from 'yaml';
import { AbortParse, indexPath, type Issues, keyPath } from './issues';
import { findJsonDuplicateKeys } from './json-duplicate-keys';
import { SCHEMA_LIMITS } from './limits';

/**
 * Turn a schema given as a string into a value: JSON first (exact, fast), then YAML with safety
 * settings. Errors are added to `issues`; returns undefined when the text is unusable.
 */
export function parseSourceText(text: string, location: string, issues: Issues): unknown {
  if (text.length > SCHEMA_LIMITS.maxSourceLength) {
    issues.fatal(location, `schema text is larger than ${SCHEMA_LIMITS.maxSourceLength / 1024} KiB`);
  }
  if (text.trim() === '') issues.fatal(location, 'schema text is empty');

  let jsonError: string | undefined;
  try {
    const value: unknown = JSON.parse(text);
    for (const dup of findJsonDuplicateKeys(text, location)) issues.add(dup.location, `duplicate key ${JSON.stringify(dup.key)}`, dup.key);
    return value;
  } catch (error) {
    if (error instanceof AbortParse) throw error;
    jsonError = error instanceof Error ? error.message : String(error);
  }
  return parseYaml(text, location, issues, /^\s*[[{]/.test(text) ? jsonError : undefined);
}

function parseYaml(text: string, location: string, issues: Issues, jsonError: string | undefined): unknown {
  let doc;
  try {
    // Duplicate keys are found below with their paths; core schema = plain JSON-like scalars only.
    doc = parseDocument(text, { uniqueKeys: false, schema: 'core', merge: false, prettyErrors: false, strict: true });
  } catch (error) {
    return failDepth(error, location, issues);
  }
  if (doc.errors.length > 0) {
    const first = doc.errors[0];
    const where = first.linePos ? ` at line ${first.linePos[0].line}, column ${first.linePos[0].col}` : '';
    const message = jsonError
      ? `schema is neither valid JSON (${jsonError}) nor valid YAML (${first.code}${where})`
      : `invalid YAML: ${first.message.split('\n')[0]}`;
    issues.fatal(location, message);
  }
  if (doc.contents === null) issues.fatal(location, 'schema text is empty');
  try {
    checkYamlNodes(doc.contents, location, issues, text);
  } catch (error) {
    if (error instanceof AbortParse) throw error;
    return failDepth(error, location, issues);
  }
  if (!issues.ok) return undefined;
  try {
    return doc.toJS({ maxAliasCount: SCHEMA_LIMITS.maxYamlAliasCount });
  } catch (error) {
    if (error instanceof ReferenceError || (error instanceof Error && /alias/i.test(error.message))) {
      issues.fatal(location, `YAML aliases expand too much (limit ${SCHEMA_LIMITS.maxYamlAliasCount}); write the structure out`);
    }
    return failDepth(error, location, issues);
  }
}

/** Walk the YAML tree (iteratively bounded by maxDepth): duplicate keys, explicit tags, non-scalar keys. */
function checkYamlNodes(root: Node, base: string, issues: Issues, text: string): void {
  const visit = (node: unknown, path: string, depth: number): void => {
    if (depth > SCHEMA_LIMITS.maxDepth) issues.fatal(path, `schema is nested deeper than ${SCHEMA_LIMITS.maxDepth} levels`);
    if (isAlias(node) || node === null || node === undefined) return;
    const tagged = node as { tag?: string; range?: [number, number, number] };
    if (tagged.tag) issues.add(path, `YAML tags are not supported (${tagged.tag})`);
    if (isMap(node)) {
      const seen = new Set<string>();
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        if (!isScalar(pair.key) || pair.key.tag) {
          issues.add(path, 'YAML keys must be plain strings');
          continue;
        }
        const key = String(pair.key.value);
        const keyLocation = keyPath(path, key);
        if (seen.has(key)) issues.add(keyLocation, `duplicate key ${JSON.stringify(key)}${lineOf(pair.key, text)}`, key);
        seen.add(key);
        visit(pair.value, keyLocation, depth + 1);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, index) => visit(item, indexPath(path, index), depth + 1));
    }
  };
  visit(root, base, 1);
}

function lineOf(node: { range?: [number, number, number] | null }, text: string): string {
  if (!node.range) return '';
  let line = 1;
  for (let i = 0; i < node.range[0] && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return ` (line ${line})`;
}

/** A stack overflow in the YAML parser means absurd nesting; anything else is a bug to surface. */
function failDepth(error: unknown, location: string, issues: Issues): never {
  if (error instanceof RangeError) issues.fatal(location, `schema is nested deeper than ${SCHEMA_LIMITS.maxDepth} levels`);
  throw error;
}
