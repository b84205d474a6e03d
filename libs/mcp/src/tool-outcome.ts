import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { RestAnswer } from './rest-port';

/** What a tool answers: structured content with a one-line summary, or the problem that refused it. */
export type ToolOutcome =
  { ok: true; structured: Record<string, unknown>; summary: string } | { ok: false; problem: Record<string, unknown> };

export const done = (structured: Record<string, unknown>, summary: string): ToolOutcome => ({ ok: true, structured, summary });
export const refused = (problem: Record<string, unknown>): ToolOutcome => ({ ok: false, problem });

/** A REST answer that is not a success, as the problem it carries (a body that is not problem+json still becomes one). */
export function refusalOf(answer: RestAnswer): ToolOutcome {
  const body = answer.body;
  if (body && typeof body === 'object' && !Array.isArray(body))
    return refused({ status: answer.status, ...(body as Record<string, unknown>) });
  return refused({ status: answer.status, title: `HTTP ${answer.status}`, detail: typeof body === 'string' ? body.slice(0, 500) : '' });
}

/** The one-line problem: title, status, detail and each field error. */
export function problemLine(problem: Record<string, unknown>): string {
  const head = `${String(problem.title ?? 'Refused')} (${String(problem.status ?? '?')}): ${String(problem.detail ?? '')}`.trim();
  const errors = Array.isArray(problem.errors) ? (problem.errors as Array<{ location?: string; message?: string }>) : [];
  return [head, ...errors.map((e) => `- ${e.location ?? ''}: ${e.message ?? ''}`)].join('\n');
}

/**
 * The MCP result: the summary first, then the same content as JSON text (for clients that do not read
 * `structuredContent`, as the MCP specification advises). A refusal is a tool error (`isError`) whose
 * text is the problem detail, then the whole problem+json.
 */
export function toCallToolResult(outcome: ToolOutcome): CallToolResult {
  if (outcome.ok) {
    return {
      content: [
        { type: 'text', text: outcome.summary },
        { type: 'text', text: JSON.stringify(outcome.structured) },
      ],
      structuredContent: outcome.structured,
    };
  }
  return {
    isError: true,
    content: [
      { type: 'text', text: problemLine(outcome.problem) },
      { type: 'text', text: JSON.stringify(outcome.problem) },
    ],
    structuredContent: outcome.problem,
  };
}
