/**
 * Shape checks shared by both adapters: a filter/update that reaches a backend uses only the port's
 * operators and plain field names, so user-influenced input can never smuggle in `$where`, `$expr`
 * or other server-side operators.
 */
import type { Filter, SortSpec, Update } from './document-store.port';
import { assertFieldName, InvalidFilterError } from './sqlite/sqlite-filter';

const FIELD_OPERATORS = new Set(['$eq', '$ne', '$in', '$nin', '$lt', '$lte', '$gt', '$gte', '$exists']);

function isScalar(v: unknown): boolean {
  return v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
}

export function validateFilter(filter: Filter): void {
  if (filter === null || typeof filter !== 'object' || Array.isArray(filter)) {
    throw new InvalidFilterError('filter must be an object');
  }
  for (const [field, cond] of Object.entries(filter)) {
    assertFieldName(field);
    if (cond === undefined || isScalar(cond)) continue;
    if (typeof cond !== 'object' || Array.isArray(cond)) throw new InvalidFilterError(`invalid condition on ${field}`);
    for (const [op, v] of Object.entries(cond as Record<string, unknown>)) {
      if (!FIELD_OPERATORS.has(op)) throw new InvalidFilterError(`unsupported operator ${JSON.stringify(op)} on ${field}`);
      if (v === undefined) continue;
      const ok =
        op === '$in' || op === '$nin'
          ? Array.isArray(v) && v.every(isScalar)
          : op === '$exists'
            ? typeof v === 'boolean'
            : op === '$eq' || op === '$ne'
              ? isScalar(v)
              : typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
      if (!ok) throw new InvalidFilterError(`invalid value for ${op} on ${field}`);
    }
  }
}

export function validateSort(sort: SortSpec | undefined): void {
  for (const [field, dir] of Object.entries(sort ?? {})) {
    assertFieldName(field);
    if (dir !== 1 && dir !== -1) throw new InvalidFilterError(`invalid sort direction for ${field}`);
  }
}

export { validateUpdate } from './sqlite/apply-update';
export type { Update };
