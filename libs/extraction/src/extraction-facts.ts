import type { ExtractionMade } from './page/page-extraction';

/** What an extract job leaves on its record (`extraction`) for its synchronous answer and GET /jobs/{id}: its page's facts and how its data was made. */
export interface ExtractionFacts extends ExtractionMade {
  fetched_at: string;
  final_url: string;
  /** `null` when a learned program extracted the page (no model call). */
  llm_model: string | null;
  llm_provider: string | null;
  fetch_duration_ms: number;
  extract_duration_ms: number;
  llm_cost_usd: number;
  is_byok: boolean;
}
