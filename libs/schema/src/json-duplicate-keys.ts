import { indexPath, keyPath } from './issues';

export interface DuplicateKey {
  location: string;
  key: string;
}

type Frame = { kind: 'object'; keys: Set<string>; key?: string; expectKey: boolean } | { kind: 'array'; index: number };

/**
 * JSON.parse keeps the last of duplicate keys silently; a schema with two `price` fields is
 * almost certainly a mistake, so scan the (already valid) JSON text for them. Linear, no recursion.
 */
export function findJsonDuplicateKeys(text: string, base: string, limit = 20): DuplicateKey[] {
  const found: DuplicateKey[] = [];
  const stack: Frame[] = [];
  for (let i = 0; i < text.length && found.length < limit; i++) {
    const ch = text[i];
    if (ch === '"') {
      let end = i + 1;
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      const top = stack[stack.length - 1];
      if (top?.kind === 'object' && top.expectKey) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        if (top.keys.has(key)) found.push({ location: pathOf(stack, base, key), key });
        top.keys.add(key);
        top.key = key;
        top.expectKey = false;
      }
      i = end;
    } else if (ch === '{') {
      stack.push({ kind: 'object', keys: new Set(), expectKey: true });
    } else if (ch === '[') {
      stack.push({ kind: 'array', index: 0 });
    } else if (ch === '}' || ch === ']') {
      stack.pop();
    } else if (ch === ',') {
      const top = stack[stack.length - 1];
      if (top?.kind === 'object') top.expectKey = true;
      else if (top) top.index++;
    }
  }
  return found;
}

function pathOf(stack: Frame[], base: string, lastKey: string): string {
  let path = base;
  for (let i = 0; i < stack.length - 1; i++) {
    const frame = stack[i];
    path = frame.kind === 'object' ? keyPath(path, frame.key ?? '') : indexPath(path, frame.index);
  }
  return keyPath(path, lastKey);
}
