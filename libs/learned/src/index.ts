export { DEFAULT_LEARNED_CONFIG, checkLearnedConfig, resolveLearnedConfig, type LearnedConfig } from './config';
export { parsePage, type LearnedPage } from './dom';
export { fingerprint, similarity, templateId, TemplateRegistry, type TemplateFingerprint, type TemplateRef } from './fingerprint';
export { learnProgram, type LearningSample, type LearnFailure, type LearnResult } from './learner';
export { checkProgram, makeProgram, runProgram, type ExtractionProgram, type FieldRule, type ValueSource, type ValueStep } from './program';
export {
  LearnedSession,
  hostOf,
  type ExtractionMethod,
  type LearnedResult,
  type LearnedSessionOptions,
  type ModelCall,
  type TemplateSummary,
} from './session';
export {
  TemplateMachine,
  type CheckReason,
  type ConsumerTrust,
  type PagePlan,
  type TemplatePhase,
  type TemplateSnapshot,
} from './template-machine';
export { disagreeingFields, planFields, valuesAgree, type FieldPlan, type LearnableField, type ValueKind } from './values';
export { MemoryTemplateStates, type TemplateCounts, type TemplateStates } from './template-states';
export {
  EXTRACTS_CONSUMER,
  LEARNED_TEMPLATES,
  LearnedTemplatesReader,
  StoreTemplateStates,
  consumerSession,
  learnedTemplateId,
  learnedTemplates,
  schemaKey,
  toLearnedTemplateView,
  type LearnedTemplateRecord,
  type LearnedTemplateView,
} from './store-template-states';
