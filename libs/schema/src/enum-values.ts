import type { ParseContext } from './context';
import { indexPath } from './issues';
import { SCHEMA_LIMITS } from './limits';
import type { JsonPrimitive } from './types';

/** Validate an `enum` list: non-empty, unique JSON scalars of the field's type (if given). */
export function checkEnum(
  value: unknown,
  at: string,
  ctx: ParseContext,
  types: readonly string[] | undefined,
): JsonPrimitive[] | undefined {
  if (!Array.isArray(value) || value.length === 0) {
    ctx.issues.add(at, 'enum must be a non-empty list');
    return undefined;
  }
  if (value.length > SCHEMA_LIMITS.maxEnumValues) {
    ctx.issues.add(at, `enum has more than ${SCHEMA_LIMITS.maxEnumValues} values`);
    return undefined;
  }
  const seen = new Set<string>();
  let ok = true;
  value.forEach((item: unknown, index) => {
    const itemAt = indexPath(at, index);
    const kind = item === null ? 'null' : typeof item;
    if (!['string', 'number', 'boolean', 'null'].includes(kind)) {
      ctx.issues.add(itemAt, 'enum values must be strings, numbers, booleans or null');
      ok = false;
      return;
    }
    if (types && !matchesType(item, types)) {
      ctx.issues.add(itemAt, `enum value does not match type ${types.join(' | ')}`, item);
      ok = false;
    }
    const key = JSON.stringify(item);
    if (seen.has(key)) {
      ctx.issues.add(itemAt, 'duplicate enum value', item);
      ok = false;
    }
    seen.add(key);
  });
  return ok ? (value as JsonPrimitive[]) : undefined;
}

function matchesType(item: unknown, types: readonly string[]): boolean {
  if (item === null) return types.includes('null');
  if (typeof item === 'string') return types.includes('string');
  if (typeof item === 'boolean') return types.includes('boolean');
  if (typeof item === 'number') return types.includes('number') || (types.includes('integer') && Number.isInteger(item));
  return false;
}
