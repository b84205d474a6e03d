/*
 * Values read from page text, shared by the model answers' coercion (@app/extraction) and the learned programs
 * (@app/learned), each of which adds its own rules around them.
 */

/**
 * A calendar date as YYYY-MM-DD, read in UTC so the day never shifts: ISO dates and date-times, D.M.YYYY and
 * D/M/YYYY, else what Date.parse reads (ordinals dropped). `namedMonth`: the last only for text with a month's name
 * (three letters) and a digit.
 */
export function calendarDate(raw: string, options: { namedMonth?: boolean } = {}): string | undefined {
  const text = raw.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return text;
  const iso = /^(\d{4}-\d{2}-\d{2})T/.exec(text);
  if (iso) return iso[1];
  const dmy = /^(\d{1,2})[./](\d{1,2})[./](\d{4})$/.exec(text);
  if (dmy) return `${dmy[3]}-${dmy[2].padStart(2, '0')}-${dmy[1].padStart(2, '0')}`;
  if (options.namedMonth && (!/[a-z]{3}/i.test(text) || !/\d/.test(text))) return undefined;
  const time = Date.parse(`${text.replace(/(\d)(st|nd|rd|th)\b/g, '$1')} UTC`);
  return Number.isNaN(time) ? undefined : new Date(time).toISOString().slice(0, 10);
}

/** A moment as an ISO date-time: the text's own zone when it names one, else UTC. */
export function instantOf(text: string): string | undefined {
  const time = Date.parse(/\b(Z|UTC|GMT|[+-]\d{2}:?\d{2})\b/.test(text) ? text : `${text} UTC`);
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}

/** An http(s) URL, absolute (resolved against `base`); undefined for anything else. */
export function httpUrlOf(raw: string, base?: string): string | undefined {
  try {
    const url = new URL(raw.trim(), base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}
