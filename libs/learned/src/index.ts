export { DEFAULT_LEARNED_CONFIG } from './config';
export { parsePage } from './dom';
export { runProgram, type ExtractionProgram, type FieldRule } from './program';
export type { GroundingCheck, LearnedResult, ModelCall, ModelRequest } from './session';
export { disagreeingFields, planFields, valuesAgree } from './values';
export { LEARNED_TEMPLATES, learnedTemplates, type LearnedTemplateRecord } from './store-template-states';
export { consumerSession, crawlConsumer, crawlSession, EXTRACTS_CONSUMER } from './sessions';
export { LearnedTemplatesReader, type LearnedTemplateView } from './learned-templates-view';
