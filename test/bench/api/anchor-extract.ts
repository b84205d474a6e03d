/**
 * The bare work of one synchronous extract for the bench:api anchor (anchor-server.ts in-process, or
 * anchor-worker.ts behind a Redis list): fetch the page over HTTP, strip it to text, one chat completion
 * with the official `openai` SDK in the request shape Gleaner sends (system + user message, strict
 * `json_schema` response format, max_completion_tokens, temperature), JSON.parse of the answer.
 *
 * Not done, on purpose (it is the anchor): no SSRF guard or DNS pinning, no robots or politeness, no
 * markdown conversion (tags and scripts are dropped by regular expressions), no schema validation or
 * retry of the answer, no grounding, no cost accounting, no fallback model.
 */
import { Agent, request as httpRequest } from 'node:http';
import OpenAI from 'openai';

export interface AnchorExtractInput {
  url: string;
  /** The request's shorthand schema (`{ field: 'string' }`). */
  schema: Record<string, string>;
  llm_config: { model: string; api_key: string; base_url: string };
}

const SYSTEM =
  'You extract structured data from one web page. Fill the JSON schema you are given using only information present in the page content. ' +
  'Use null for anything the page does not state; never invent values. Answer with the JSON object only.';

/** The strict JSON schema of a flat shorthand schema (every field nullable and required, as OpenAI's strict mode wants). */
function strictSchema(shorthand: Record<string, string>): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const [field, type] of Object.entries(shorthand)) properties[field] = { type: [type, 'null'] };
  return { type: 'object', properties, required: Object.keys(shorthand), additionalProperties: false };
}

/** Tags, scripts and styles out, entities of the common few decoded, whitespace folded. */
export function pageText(html: string): string {
  return html
    .replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

const agent = new Agent({ keepAlive: true, maxSockets: 256 });

/** GET of the page; a `*.test` host goes to 127.0.0.1 (the playground's resolve rule, as GLEANER_RESOLVE gives the app). */
function fetchPage(url: string): Promise<string> {
  const target = new URL(url);
  const host = target.hostname.endsWith('.test') ? '127.0.0.1' : target.hostname;
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host, port: target.port || 80, path: target.pathname + target.search, headers: { host: target.host }, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          res.statusCode === 200 ? resolve(Buffer.concat(chunks).toString('utf8')) : reject(new Error(`page answered ${res.statusCode}`)),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const clients = new Map<string, OpenAI>();

function clientFor(config: AnchorExtractInput['llm_config']): OpenAI {
  const key = `${config.base_url}\n${config.api_key}`;
  let client = clients.get(key);
  if (!client) {
    client = new OpenAI({ apiKey: config.api_key, baseURL: config.base_url, maxRetries: 0 });
    clients.set(key, client);
  }
  return client;
}

export async function anchorExtract(input: AnchorExtractInput): Promise<{ data: unknown; inputTokens: number; outputTokens: number }> {
  const text = pageText(await fetchPage(input.url));
  const schema = strictSchema(input.schema);
  const completion = await clientFor(input.llm_config).chat.completions.create({
    model: input.llm_config.model,
    messages: [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: `Page URL: ${input.url}\n\nJSON schema to fill:\n${JSON.stringify(schema)}\n\n<page>\n${text}\n</page>` },
    ],
    response_format: { type: 'json_schema', json_schema: { name: 'extraction', schema, strict: true } },
    max_completion_tokens: 4096,
    temperature: 0,
  });
  return {
    data: JSON.parse(completion.choices[0]?.message?.content ?? 'null') as unknown,
    inputTokens: completion.usage?.prompt_tokens ?? 0,
    outputTokens: completion.usage?.completion_tokens ?? 0,
  };
}
