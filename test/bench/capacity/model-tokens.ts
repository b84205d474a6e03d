/**
 * What the model was asked, from the requests the local model server recorded: calls, prompt characters,
 * and prompt tokens by a real tokenizer (o200k_base, the encoding of the gpt-4o family the benchmark's
 * crawls name). The stand-in reports usage as ceil(characters / 4); the job's own counters carry that,
 * and both are kept so a reader sees how far the approximation is from a real count.
 */
import { getEncoding, type Tiktoken } from 'js-tiktoken';
import type { RecordedRequest } from '../../fixtures/model-server';

let encoder: Tiktoken | undefined;
const o200k = (): Tiktoken => (encoder ??= getEncoding('o200k_base'));

export interface ModelCounts {
  /** Structured-output calls (chat completions / messages). */
  calls: number;
  /** Characters of system + user text + the JSON schema sent. */
  prompt_chars: number;
  /** The same text in o200k_base tokens. */
  prompt_tokens_o200k: number;
}

/** The text a structured call sends: instructions, the page, the schema (as the stand-in counts it too). */
export function promptText(request: Pick<RecordedRequest, 'system' | 'userText' | 'schema'>): string {
  return [request.system ?? '', request.userText].join('\n') + (request.schema ? JSON.stringify(request.schema) : '');
}

export function countModelRequests(requests: readonly RecordedRequest[]): ModelCounts {
  let calls = 0;
  let chars = 0;
  let tokens = 0;
  for (const request of requests) {
    if (request.method !== 'POST') continue;
    calls++;
    const text = promptText(request);
    chars += text.length;
    tokens += o200k().encode(text).length;
  }
  return { calls, prompt_chars: chars, prompt_tokens_o200k: tokens };
}
