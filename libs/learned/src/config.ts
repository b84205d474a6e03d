/**
 * Per-template thresholds and sample sizes of learned extraction. The defaults and why they are what
 * they are: docs/learned-extraction.md.
 */
export interface LearnedConfig {
  /** Pages the model extracts before a program is learned from them. */
  learnPages: number;
  /** Pages extracted both ways (model and program) before a program is trusted. */
  verifyPages: number;
  /** Share of verification pages on which every field must agree (1 = all of them). */
  acceptAgreement: number;
  /** While a program is active, one page in this many still goes to the model as a spot check. */
  spotCheckEvery: number;
  /** A check where at least this share of the fields disagrees retires the program at once. */
  retireFieldShare: number;
  /** Otherwise the program is retired when `retireAfter` of the last `retireWindow` checks disagree. */
  retireAfter: number;
  retireWindow: number;
  /** Most model-extracted pages kept for (re)learning a template; the oldest go first. */
  maxSamples: number;
  /** Fingerprint similarity (Jaccard, 0..1) at which a page joins a known template of its host. */
  templateSimilarity: number;
}

export const DEFAULT_LEARNED_CONFIG: Readonly<LearnedConfig> = Object.freeze({
  learnPages: 3,
  verifyPages: 5,
  acceptAgreement: 1,
  spotCheckEvery: 25,
  retireFieldShare: 0.5,
  retireAfter: 2,
  retireWindow: 5,
  maxSamples: 12,
  templateSimilarity: 0.6,
});

const LIMITS: Record<keyof LearnedConfig, { min: number; max: number; integer: boolean }> = {
  learnPages: { min: 1, max: 50, integer: true },
  verifyPages: { min: 1, max: 200, integer: true },
  acceptAgreement: { min: 0.5, max: 1, integer: false },
  spotCheckEvery: { min: 2, max: 10_000, integer: true },
  retireFieldShare: { min: 0.01, max: 1, integer: false },
  retireAfter: { min: 1, max: 100, integer: true },
  retireWindow: { min: 1, max: 100, integer: true },
  maxSamples: { min: 1, max: 100, integer: true },
  templateSimilarity: { min: 0.05, max: 1, integer: false },
};

/** Problems with a (partial) configuration, as `key: message`; empty when it is usable. */
export function checkLearnedConfig(input: Partial<Record<keyof LearnedConfig, unknown>>): string[] {
  const problems: string[] = [];
  for (const [key, value] of Object.entries(input)) {
    const limit = LIMITS[key as keyof LearnedConfig];
    if (!limit) {
      problems.push(`${key}: unknown setting (known: ${Object.keys(LIMITS).join(', ')})`);
      continue;
    }
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isFinite(value)) problems.push(`${key}: must be a number`);
    else if (limit.integer && !Number.isInteger(value)) problems.push(`${key}: must be a whole number`);
    else if (value < limit.min || value > limit.max) problems.push(`${key}: must be between ${limit.min} and ${limit.max}`);
  }
  const merged = { ...DEFAULT_LEARNED_CONFIG, ...input } as LearnedConfig;
  if (problems.length === 0) {
    if (merged.retireAfter > merged.retireWindow) problems.push('retireAfter: must not exceed retireWindow');
    if (merged.learnPages > merged.maxSamples) problems.push('learnPages: must not exceed maxSamples');
  }
  return problems;
}

/** Defaults overlaid with the given settings; throws (with every problem) on a bad value. */
export function resolveLearnedConfig(input: Partial<LearnedConfig> = {}): LearnedConfig {
  const problems = checkLearnedConfig(input);
  if (problems.length > 0) throw new RangeError(`invalid learned extraction settings: ${problems.join('; ')}`);
  const out: LearnedConfig = { ...DEFAULT_LEARNED_CONFIG };
  for (const [key, value] of Object.entries(input)) if (value !== undefined) out[key as keyof LearnedConfig] = value;
  return out;
}
