import { Inject, Injectable } from '@nestjs/common';
import type { Caller } from '@app/auth';
import { Errors } from '@app/core';
import { LearnedTemplatesReader, learnedTemplates, type LearnedTemplateView } from '@app/learned';
import { DOCUMENT_STORE, type DocumentStore } from '@app/storage';
import type { ListLearnedProgramsQuery } from './dto/learned-programs.dto';

/**
 * /api/v1/learned-programs: the caller's learned templates and their programs
 * (docs/learned-extraction.md "Managing learned programs"). Another user's template is "not found".
 */
@Injectable()
export class LearnedProgramsService {
  constructor(@Inject(DOCUMENT_STORE) private readonly store: DocumentStore) {}

  async list(caller: Caller, query: ListLearnedProgramsQuery): Promise<{ learned_programs: LearnedTemplateView[] }> {
    const reader = await this.templates();
    const views = await reader.list(caller.userId, query.host, { limit: query.limit ?? 20, offset: query.offset ?? 0 });
    return { learned_programs: views };
  }

  async get(caller: Caller, id: string): Promise<LearnedTemplateView> {
    const view = await (await this.templates()).get(caller.userId, id);
    if (!view) throw Errors.notFound('Learned program');
    return view;
  }

  /** The next page of the template starts a new learning round (a crawl running now included). */
  async delete(caller: Caller, id: string): Promise<void> {
    if (!(await (await this.templates()).delete(caller.userId, id))) throw Errors.notFound('Learned program');
  }

  private async templates(): Promise<LearnedTemplatesReader> {
    return new LearnedTemplatesReader(await learnedTemplates(this.store));
  }
}
