/**
 * The ESM-only libraries, loaded with `import()`: this project compiles to CommonJS
 * (`module: nodenext`), and a static import would become `require()`. Each is loaded once, when
 * first needed, so commands that do not use one do not pay for it.
 */
import type * as Commander from 'commander';
import type * as LogUpdate from 'log-update';
import type * as SseParser from 'eventsource-parser';

let commander: Promise<typeof Commander> | undefined;
let logUpdate: Promise<typeof LogUpdate> | undefined;
let sseParser: Promise<typeof SseParser> | undefined;

export function loadCommander(): Promise<typeof Commander> {
  return (commander ??= import('commander'));
}

export function loadLogUpdate(): Promise<typeof LogUpdate> {
  return (logUpdate ??= import('log-update'));
}

export function loadSseParser(): Promise<typeof SseParser> {
  return (sseParser ??= import('eventsource-parser'));
}
