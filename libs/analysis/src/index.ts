export type {
  AnalysisHeuristics,
  AnalysisResultFields,
  DetailField,
  DetectedElement,
  ElementType,
  FetchModeVerdict,
  FieldHint,
  FieldKind,
  FollowPattern,
  PageLink,
  PageMetadataInput,
  PageType,
  PageTypeVerdict,
} from './types';
export { detectRepeatedElements } from './repeated-elements';
export { inferFollowPatterns } from './follow-patterns';
export { classifyPageType, type ClassifyInput } from './page-type';
export {
  recommendFetchMode,
  DYNAMIC_MIN_EXTRA_CHARS,
  DYNAMIC_RATIO,
  SHELL_MAX_CHARS,
  STATIC_MAX_EXTRA_CHARS,
  STATIC_MAX_RATIO,
} from './fetch-mode';
export { suggestSchemaFromStructure, type SchemaSuggestionInput } from './schema-suggestion';
export { analyzePage, toAnalysisResult, type AnalyzePageInput } from './analyze-page';
