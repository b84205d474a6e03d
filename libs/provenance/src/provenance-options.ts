import { z } from 'zod';

/**
 * How much of each value's provenance a result item carries (docs/provenance.md "Options"):
 * `off` none (the counters and the policy still apply), `summary` `source` and `grounded` per leaf,
 * `full` also the selector, the evidence, the reason for a null and a value the policy removed.
 */
export const PROVENANCE_MODES = ['off', 'summary', 'full'] as const;
export type ProvenanceMode = (typeof PROVENANCE_MODES)[number];

/**
 * What an ungrounded value (one not found on the page) does: `report` keeps it (`grounded: false`),
 * `null_ungrounded` replaces it by null, `fail_page` fails the page (error_category `ungrounded_output`).
 */
export const GROUNDING_POLICIES = ['report', 'null_ungrounded', 'fail_page'] as const;
export type GroundingPolicy = (typeof GROUNDING_POLICIES)[number];

/**
 * The defaults (docs/provenance.md "Why summary by default"): every item says where each value came from and
 * whether it is on the page (a few dozen bytes per value); nothing is changed or failed unless asked for.
 */
export const PROVENANCE_DEFAULTS = { provenance: 'summary', grounding: 'report' } as const satisfies {
  provenance: ProvenanceMode;
  grounding: GroundingPolicy;
};

/** Stored job inputs: jobs queued before the options existed take the defaults. */
export const provenanceModeSchema = z.enum(PROVENANCE_MODES).default(PROVENANCE_DEFAULTS.provenance);
export const groundingPolicySchema = z.enum(GROUNDING_POLICIES).default(PROVENANCE_DEFAULTS.grounding);

/** The provenance settings a page is extracted with. */
export interface ProvenanceSettings {
  provenance: ProvenanceMode;
  grounding: GroundingPolicy;
}
