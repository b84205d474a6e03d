import { Errors, type FieldError } from '@app/core';
import { SCHEMA_LIMITS } from './limits';

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `base.key` for identifier-like keys, `base["odd key"]` otherwise. */
export function keyPath(base: string, key: string): string {
  return IDENTIFIER.test(key) ? `${base}.${key}` : `${base}[${JSON.stringify(key)}]`;
}

export function indexPath(base: string, index: number): string {
  return `${base}[${index}]`;
}

/** Thrown to stop processing once a hard limit is hit; parseSchema turns it into the 422. */
export class AbortParse extends Error {}

/** Collects field errors so one response can report several problems. */
export class Issues {
  readonly errors: FieldError[] = [];

  add(location: string, message: string, value?: unknown): void {
    if (this.errors.length >= SCHEMA_LIMITS.maxErrors) throw new AbortParse();
    const error: FieldError = { location, message };
    if (value !== undefined) error.value = preview(value);
    this.errors.push(error);
  }

  /** Record and stop: used for limits, where carrying on would be wasted (or dangerous) work. */
  fatal(location: string, message: string, value?: unknown): never {
    this.add(location, message, value);
    throw new AbortParse();
  }

  get ok(): boolean {
    return this.errors.length === 0;
  }

  toError() {
    return Errors.validation(this.errors, 'The schema is invalid.');
  }
}

/** Echo short scalars only: error bodies must stay small even for huge inputs. */
function preview(value: unknown): unknown {
  if (typeof value === 'string') return value.length > 200 ? `${value.slice(0, 200)}…` : value;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return value;
  return undefined;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

export function hasOwn(object: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(object, key);
}

/** Assign without invoking setters, so a field called `__proto__` stays a plain property. */
export function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}
