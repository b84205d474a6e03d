/**
 * The model call a page's result cost (docs/api.md "Jobs": `model_calls_by_kind`): `full` without
 * extraction_mode auto (and for entries stored before calls had kinds), none for a `selectors` page, and for a
 * `scrape` page only its `json` format's call.
 */
export function callKind(result: { method?: string | null; model_call?: 'full' | 'partial' | null }): 'full' | 'partial' | null {
  if (result.method === 'scrape') return result.model_call ?? null;
  if (result.method === 'selectors' || result.method === 'unchanged') return null;
  return result.model_call ?? 'full';
}
