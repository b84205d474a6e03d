/**
 * Something that worked but deserves a look (docs/api.md "Warnings"): on extract and scrape answers and on
 * every result item (crawl and batch pages, exports, SSE `result`, `job.page` webhooks). One value type,
 * made here and carried as it is; a new kind is a new code in WARNING_CODES, nothing else.
 */
export interface Warning {
  /** Stable, snake_case: what a client switches on (WARNING_CODES). */
  code: WarningCode;
  /** For a person: what happened and what to do about it. */
  message: string;
  /** Where it applies, as `errors[].location` has it (`body.schema.price`), or null (the page). */
  location: string | null;
}

/** Every code, with what it means (the OpenAPI document's description of `code` lists them). */
export const WARNING_CODES = {
  content_truncated: "the page's text was cut to fit the model's context: values past the cut could not be extracted",
  main_content_empty:
    "the page's HTML holds no main content (only navigation, footers or a notice to turn on JavaScript: its scripts draw the rest): markdown, text and html are empty; fetch_mode dynamic renders the page",
  list_incomplete:
    "a list of the answer has fewer items than the page's repeated structure holds (metadata.items says how many of how many): the missing ones were not extracted",
  model_extra_fields:
    'a partial model call (extraction_mode auto) answered fields it was not asked for; they were dropped and the fields asked for kept',
  schema_type_misspelled:
    'a shorthand schema value close to a type name (`"numbr"`) was taken as the description of a text field, as the schema language says; the message names the type it may have meant',
} as const;

export type WarningCode = keyof typeof WARNING_CODES;

export function warning(code: WarningCode, message: string, location: string | null = null): Warning {
  return { code, message, location };
}

/** A stored list as it is on the wire: anything that is not a warning is dropped (records stored before warnings had none). */
export function warningsOf(value: unknown): Warning[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter(
      (w): w is Warning =>
        typeof w === 'object' && w !== null && typeof (w as Warning).code === 'string' && typeof (w as Warning).message === 'string',
    )
    .map((w) => ({ code: w.code, message: w.message, location: typeof w.location === 'string' ? w.location : null }));
}
