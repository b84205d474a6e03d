export { DEFAULT_LEARNED_CONFIG, checkLearnedConfig, resolveLearnedConfig, type LearnedConfig } from './config';
export { clipValue, type CheckReason, type Disagreement, type DisagreementLog } from './disagreement-log';
export { parsePage, type LearnedPage } from './dom';
export { excerptOf, locate } from './excerpt';
export { ruleKey, type FieldPhase, type FieldState } from './field-state';
export { fingerprint, similarity, templateId, TemplateRegistry, type TemplateFingerprint, type TemplateRef } from './fingerprint';
export { learnProgram, learnRule, type LearningSample, type LearnFailure, type LearnResult, type RuleResult } from './learner';
export { checkProgram, makeProgram, runProgram, type ExtractionProgram, type FieldRule, type ValueSource, type ValueStep } from './program';
export {
  LearnedSession,
  hostOf,
  type ExtractionMethod,
  type ExtractPageOptions,
  type GroundingCheck,
  type LearnedResult,
  type LearnedSessionOptions,
  type ModelCall,
  type ModelRequest,
  type TemplateSummary,
} from './session';
export {
  TemplateMachine,
  type FieldRole,
  type FieldTrust,
  type PageOutcome,
  type PageRecord,
  type TemplatePhase,
} from './template-machine';
export { restoreMachine, snapshotOf, type TemplateSnapshot } from './template-snapshot';
export { disagreeingFields, partialSchema, planFields, valuesAgree, type FieldPlan, type LearnableField, type ValueKind } from './values';
export { MemoryTemplateStates, type TemplateCounts, type TemplateStates } from './template-states';
export {
  LEARNED_TEMPLATES,
  StoreTemplateStates,
  learnedTemplateId,
  learnedTemplates,
  schemaKey,
  type LearnedTemplateRecord,
} from './store-template-states';
export { EXTRACTS_CONSUMER, consumerSession, crawlConsumer, crawlSession } from './sessions';
export { LearnedTemplatesReader, toLearnedTemplateView, type LearnedFieldView, type LearnedTemplateView } from './learned-templates-view';
