import { Injectable } from '@nestjs/common';
import type { Caller } from '@app/auth';
import { Errors } from '@app/core';
import { JobsRepository } from './jobs.repository';

export interface UsageTotals {
  jobs: number;
  pages: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
}

export interface UsageReport {
  from: string;
  to: string;
  total: UsageTotals;
  by_type: Record<string, UsageTotals>;
  days: Array<{ date: string } & UsageTotals>;
}

const DAY_MS = 86_400_000;
const empty = (): UsageTotals => ({ jobs: 0, pages: 0, input_tokens: 0, output_tokens: 0, cost_usd: 0 });

/** GET /usage: the caller's jobs, pages, tokens and USD, total, per job type and per UTC day. */
@Injectable()
export class UsageService {
  constructor(private readonly repository: JobsRepository) {}

  async report(caller: Caller, fromParam?: string, toParam?: string): Promise<UsageReport> {
    const to = toParam ? this.parse(toParam, 'query.to') : new Date(Date.now() + 1);
    const from = fromParam ? this.parse(fromParam, 'query.from') : new Date(to.getTime() - 30 * DAY_MS);
    if (from.getTime() >= to.getTime())
      throw Errors.validation([{ location: 'query.from', message: 'must be before `to`', value: fromParam }]);
    if (to.getTime() - from.getTime() > 366 * DAY_MS)
      throw Errors.validation([{ location: 'query.from', message: 'the range may span at most 366 days', value: fromParam }]);
    const total = empty();
    const byType: Record<string, UsageTotals> = {};
    const days = new Map<string, UsageTotals>();
    for await (const job of this.repository.iterateOwnCreatedBetween({ userId: caller.userId }, from.toISOString(), to.toISOString())) {
      const day = job.created_at.slice(0, 10);
      for (const bucket of [total, (byType[job.type] ??= empty()), days.get(day) ?? days.set(day, empty()).get(day)!]) {
        bucket.jobs += 1;
        bucket.pages += job.page_count;
        bucket.input_tokens += job.token_usage_input;
        bucket.output_tokens += job.token_usage_output;
        bucket.cost_usd += job.cost_usd;
      }
    }
    const round = (t: UsageTotals) => ({ ...t, cost_usd: Math.round(t.cost_usd * 1e6) / 1e6 });
    return {
      from: from.toISOString(),
      to: to.toISOString(),
      total: round(total),
      by_type: Object.fromEntries(Object.entries(byType).map(([k, v]) => [k, round(v)])),
      days: [...days.entries()].map(([date, t]) => ({ date, ...round(t) })),
    };
  }

  private parse(value: string, location: string): Date {
    const time = Date.parse(value.toUpperCase());
    if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(time))
      throw Errors.validation([{ location, message: 'must be an RFC 3339 timestamp or a date (YYYY-MM-DD)', value }]);
    return new Date(time);
  }
}
