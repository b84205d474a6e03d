import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { PageArchive } from '@app/archive';
import { TENANT_ERASERS, type TenantErasers } from '@app/core';
import { DuplicateIndex } from '@app/dedup';
import { CrawlRepository } from '../crawl.repository';

/**
 * A tenant's deletion (docs/api.md "Users") in the crawl engine's stores: its batches' URL lists, and its
 * whole page archive (docs/archive.md "Deleting"): every page, every body and every WARC upload, and its
 * usage record. Bodies are stored per tenant, so another tenant's copy of the same page stays. A job's
 * crawl map and state go with the job (CrawlDeletion, a JobDeletionHooks listener); its duplicate index too, and
 * whatever of the tenant's index is left (a page worker finishing a cancelled crawl's page) goes by tenant here.
 */
@Injectable()
export class CrawlTenantErasure implements OnModuleInit {
  constructor(
    @Inject(TENANT_ERASERS) private readonly erasers: TenantErasers,
    private readonly repository: CrawlRepository,
    private readonly archive: PageArchive,
    private readonly duplicates: DuplicateIndex,
  ) {}

  onModuleInit(): void {
    this.erasers.register({ name: 'batch_lists', phase: 'data', run: (userId) => this.repository.lists.deleteListsOf({ userId }) });
    this.erasers.register({ name: 'duplicate_index', phase: 'data', run: (userId) => this.duplicates.forgetTenant(userId) });
    this.erasers.register({
      name: 'archive',
      phase: 'data',
      run: async (userId) => {
        const { pages, bodies } = await this.archive.deleteTenant(userId);
        return pages + bodies;
      },
    });
  }
}
