import pino, { type Logger } from 'pino';

/**
 * Paths whose values never reach a log line. Secrets are also kept out of log calls by
 * construction (we never log request bodies or headers wholesale); this is the safety net.
 */
export const REDACT_PATHS = [
  'authorization',
  'headers.authorization',
  'req.headers.authorization',
  'request.headers.authorization',
  // The Firecrawl SDK's watcher sends its key as the WebSocket subprotocol (docs/security.md).
  'headers["sec-websocket-protocol"]',
  'req.headers["sec-websocket-protocol"]',
  'request.headers["sec-websocket-protocol"]',
  'api_key',
  '*.api_key',
  '*.*.api_key',
  'secret',
  '*.secret',
  '*.*.secret',
  'key',
  '*.key',
  'token',
  '*.token',
  'password',
  '*.password',
  'cookies',
  '*.cookies',
  'fetch_headers',
  '*.fetch_headers',
  'fetch_cookies',
  '*.fetch_cookies',
];

export type AppLogger = Logger;

export function createLogger(options: { level: string; name?: string; destination?: NodeJS.WritableStream }): AppLogger {
  return pino(
    {
      level: options.level,
      name: options.name ?? 'gleaner',
      base: { pid: process.pid },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    options.destination ?? pino.destination({ dest: 1, sync: false }),
  );
}

/** Removes anything that looks like a Gleaner or provider secret from free text (error messages). */
export function scrubSecrets(text: string): string {
  return text
    .replace(/glk_[0-9A-Za-z]{8,}/g, 'glk_[redacted]')
    .replace(/\b(sk|rk|pk)-[A-Za-z0-9_-]{8,}/g, '$1-[redacted]')
    .replace(/(Bearer\s+)[A-Za-z0-9._~+/=-]+/gi, '$1[redacted]');
}
