import { Injectable } from '@nestjs/common';
import type { Caller } from '@app/auth';
import { Errors, newId, nowIso } from '@app/core';
import { SavedSchemasService } from '@app/saved-schemas';
import type { CreateSiteDto, UpdateSiteDto } from './dto/site.dto';
import { SitesRepository, type SiteRecord } from './sites.repository';
import { domainOf } from './url-rules';

export interface SiteView {
  id: string;
  url: string;
  domain: string;
  name: string;
  fetch_mode: string;
  default_schema_id: string | null;
  crawl_options: Record<string, unknown>;
  analysis_result: Record<string, unknown> | null;
  organization_id: string;
  user_id: string;
  created_at: string;
  updated_at: string;
}

const toView = (r: SiteRecord): SiteView => ({
  id: r._id,
  url: r.url,
  domain: r.domain,
  name: r.name,
  fetch_mode: r.fetch_mode,
  default_schema_id: r.default_schema_id,
  crawl_options: r.crawl_options,
  analysis_result: r.analysis_result,
  organization_id: r.organization_id,
  user_id: r.user_id,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

/** Plain-object copy of a validated DTO (drops class prototypes and undefined fields). */
const plain = (value: object | undefined): Record<string, unknown> | undefined =>
  value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as Record<string, unknown>);

@Injectable()
export class SitesService {
  constructor(
    private readonly repository: SitesRepository,
    private readonly schemas: SavedSchemasService,
  ) {}

  async create(caller: Caller, dto: CreateSiteDto): Promise<SiteView> {
    refuseStoredSecrets(dto.crawl_options);
    if (dto.default_schema_id) await this.schemas.resolveForUse(caller, dto.default_schema_id, 'body.default_schema_id', false);
    const now = nowIso();
    const record: SiteRecord = {
      _id: newId(),
      user_id: caller.userId,
      organization_id: caller.organizationId,
      url: dto.url,
      domain: domainOf(dto.url),
      name: dto.name ?? domainOf(dto.url),
      fetch_mode: dto.fetch_mode ?? 'auto',
      default_schema_id: dto.default_schema_id ?? null,
      crawl_options: plain(dto.crawl_options) ?? {},
      analysis_result: plain(dto.analysis_result) ?? null,
      created_at: now,
      updated_at: now,
    };
    await this.repository.insert(record);
    return toView(record);
  }

  async list(caller: Caller): Promise<{ sites: SiteView[] }> {
    return { sites: (await this.repository.listOwn({ userId: caller.userId })).map(toView) };
  }

  async get(caller: Caller, id: string): Promise<SiteView> {
    return toView(await this.getRecord(caller, id));
  }

  /** For extract/crawl/analyze `site_id`: the caller's own site, or a 422 pointing at the field. */
  async resolveForUse(caller: { userId: string }, id: string, location: string): Promise<SiteRecord> {
    const site = await this.repository.findOwn(caller, id);
    if (!site) throw Errors.validation([{ location, message: 'no such site', value: id }]);
    return site;
  }

  async update(caller: Caller, id: string, dto: UpdateSiteDto): Promise<SiteView> {
    await this.getRecord(caller, id);
    refuseStoredSecrets(dto.crawl_options);
    if (dto.default_schema_id) await this.schemas.resolveForUse(caller, dto.default_schema_id, 'body.default_schema_id', false);
    const set: Record<string, unknown> = { updated_at: nowIso() };
    if (dto.name !== undefined) set.name = dto.name;
    if (dto.fetch_mode !== undefined) set.fetch_mode = dto.fetch_mode;
    if (dto.default_schema_id !== undefined) set.default_schema_id = dto.default_schema_id;
    if (dto.crawl_options !== undefined) set.crawl_options = plain(dto.crawl_options);
    if (dto.analysis_result !== undefined) set.analysis_result = plain(dto.analysis_result);
    const updated = await this.repository.updateOwn({ userId: caller.userId }, id, set);
    if (!updated) throw Errors.notFound('Site');
    return toView(updated);
  }

  async remove(caller: Caller, id: string): Promise<{ success: true }> {
    if (!(await this.repository.deleteOwn({ userId: caller.userId }, id))) throw Errors.notFound('Site');
    return { success: true };
  }

  private async getRecord(caller: Caller, id: string): Promise<SiteRecord> {
    const site = await this.repository.findOwn({ userId: caller.userId }, id);
    if (!site) throw Errors.notFound('Site');
    return site;
  }
}

/**
 * A saved site keeps no headers or cookies (docs/scrape.md "Fetch control"): they are request-only secrets,
 * given in each crawl's or batch's options, so a site record never holds a credential in the clear.
 */
function refuseStoredSecrets(options: { headers?: unknown; cookies?: unknown } | undefined): void {
  const given = (['headers', 'cookies'] as const).filter((name) => options?.[name] !== undefined && options[name] !== null);
  if (given.length === 0) return;
  throw Errors.validation(
    given.map((name) => ({
      location: `body.crawl_options.${name}`,
      message: `is request-only: a saved site keeps no ${name}; give them in each crawl's options (they travel sealed and are never stored)`,
    })),
  );
}
