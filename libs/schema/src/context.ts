import type { Warning } from '@app/core';
import type { Issues } from './issues';
import { SCHEMA_LIMITS } from './limits';

/** Per-parse state shared by the form converters. */
export class ParseContext {
  fieldCount = 0;
  /** What parsed but deserves a look (a description that looks like a misspelled type name). */
  readonly warnings: Warning[] = [];

  constructor(readonly issues: Issues) {}

  /** Count one property; past the cap, stop (large schemas are also slow to send to a model). */
  countField(location: string, count = 1): void {
    this.fieldCount += count;
    if (this.fieldCount > SCHEMA_LIMITS.maxFields) this.issues.fatal(location, `schema has more than ${SCHEMA_LIMITS.maxFields} fields`);
  }

  /** Validate a description; returns it trimmed, or undefined. */
  description(value: unknown, location: string): string | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') {
      this.issues.add(location, 'description must be a string', value);
      return undefined;
    }
    if (value.length > SCHEMA_LIMITS.maxDescriptionLength) {
      this.issues.add(location, `description is longer than ${SCHEMA_LIMITS.maxDescriptionLength} characters`);
      return undefined;
    }
    const trimmed = value.trim();
    return trimmed === '' ? undefined : trimmed;
  }
}
