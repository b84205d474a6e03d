export {
  GROUNDING_POLICIES,
  PROVENANCE_DEFAULTS,
  PROVENANCE_MODES,
  groundingPolicySchema,
  provenanceModeSchema,
  type GroundingPolicy,
  type ProvenanceMode,
  type ProvenanceSettings,
} from './provenance-options';
export { GROUNDING_LIMITS, type GroundingLimits } from './grounding-limits';
export { GroundingIndex, TEXT_ATTRIBUTES, URL_ATTRIBUTES, type GroundingSource, type SegmentKind } from './grounding-index';
export { groundValue, type Evidence, type LeafKind, type UncheckedReason, type Verdict } from './ground-value';
export { formatPath, leavesOf, type Leaf } from './leaves';
export {
  groundData,
  type FieldOrigin,
  type FieldProvenance,
  type GroundingCounts,
  type NullReason,
  type ProvenanceInput,
  type ProvenanceOutcome,
  type SelectorView,
  type ValueSource,
} from './field-provenance';
export { PageGrounding, type GroundingPage } from './page-grounding';
