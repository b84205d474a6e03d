import { indexPath, isPlainObject, type Issues, keyPath } from './issues';
import { SCHEMA_LIMITS } from './limits';

/**
 * The input must be a plain JSON value, nested at most maxDepth levels. Bounded by depth, so cyclic
 * objects handed in by code are caught too. Stops descending on the first depth violation.
 */
export function checkJsonValue(value: unknown, location: string, issues: Issues): void {
  const visit = (node: unknown, path: string, depth: number): void => {
    if (node === null || typeof node === 'string' || typeof node === 'boolean') return;
    if (typeof node === 'number') {
      if (!Number.isFinite(node)) issues.add(path, 'numbers must be finite', String(node));
      return;
    }
    if (Array.isArray(node) || isPlainObject(node)) {
      if (depth > SCHEMA_LIMITS.maxDepth) issues.fatal(path, `schema is nested deeper than ${SCHEMA_LIMITS.maxDepth} levels`);
      if (Array.isArray(node)) node.forEach((item, index) => visit(item, indexPath(path, index), depth + 1));
      else for (const key of Object.keys(node)) visit(node[key], keyPath(path, key), depth + 1);
      return;
    }
    issues.add(path, `not a JSON value (${typeof node})`);
  };
  visit(value, location, 1);
}
