/** Hard limits on a submitted schema; all exceed-cases become 422 errors, never hangs. */
export const SCHEMA_LIMITS = {
  /** Size of a schema given as a JSON or YAML string (UTF-16 code units, ~bytes for ASCII). */
  maxSourceLength: 256 * 1024,
  /** Nesting of objects/arrays in the submitted document. */
  maxDepth: 32,
  /** Properties at all levels, counted after `$ref` expansion. */
  maxFields: 1000,
  maxNameLength: 128,
  maxDescriptionLength: 4000,
  maxEnumValues: 500,
  maxPatternLength: 1000,
  /** YAML alias expansion budget (billion-laughs guard). */
  maxYamlAliasCount: 32,
  /** Stop collecting after this many errors. */
  maxErrors: 50,
} as const;
