export type { AnalysisHeuristics } from './types';
export { analyzePage } from './analyze-page';
