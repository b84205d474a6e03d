import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { TENANT_ERASERS, type TenantErasers } from '@app/core';
import { LearnedTemplatesReader, learnedTemplates } from '@app/learned';
import { DOCUMENT_STORE, type DocumentStore } from '@app/storage';

/** A tenant's learned programs (templates, their hosts' registries, their disagreement logs) go with it (docs/api.md "Users"). */
@Injectable()
export class LearnedTenantErasure implements OnModuleInit {
  constructor(
    @Inject(TENANT_ERASERS) private readonly erasers: TenantErasers,
    @Inject(DOCUMENT_STORE) private readonly store: DocumentStore,
  ) {}

  onModuleInit(): void {
    this.erasers.register({
      name: 'learned_programs',
      phase: 'data',
      run: async (userId) => new LearnedTemplatesReader(await learnedTemplates(this.store)).deleteAllOf(userId),
    });
  }
}
