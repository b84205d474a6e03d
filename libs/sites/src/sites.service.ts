import { Inject, Injectable } from '@nestjs/common';
import type { Caller } from '@app/auth';
import { Errors, newId, nowIso, SECRET_SEALER, type SecretSealer } from '@app/core';
import { SavedSchemasService } from '@app/saved-schemas';
import type { SavedCrawlOptionsDto } from './dto/saved-crawl-options.dto';
import type { CreateSiteDto, UpdateSiteDto } from './dto/site.dto';
import { maskedFetchSecrets, openFetchSecrets, savedCrawlOptions, type FetchSecretMaps } from './saved-fetch-secrets';
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
  // The stored headers and cookies by name, each value masked (docs/api.md "Saved sites").
  crawl_options: { ...r.crawl_options, ...maskedFetchSecrets(r) },
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
    @Inject(SECRET_SEALER) private readonly sealer: SecretSealer,
  ) {}

  async create(caller: Caller, dto: CreateSiteDto): Promise<SiteView> {
    const options = this.savedOptions(dto.crawl_options ?? {}, null);
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
      crawl_options: options.crawl_options,
      analysis_result: plain(dto.analysis_result) ?? null,
      fetch_secret_names: options.fetch_secret_names ?? null,
      fetch_secrets_sealed: options.fetch_secrets_sealed ?? null,
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

  /** The headers and cookies the site keeps, opened (for the crawls, batches and monitors that use it). */
  fetchSecrets(site: SiteRecord): FetchSecretMaps {
    return openFetchSecrets(this.sealer, site);
  }

  /** For extract/crawl/analyze `site_id`: the caller's own site, or a 422 pointing at the field. */
  async resolveForUse(caller: { userId: string }, id: string, location: string): Promise<SiteRecord> {
    const site = await this.repository.findOwn(caller, id);
    if (!site) throw Errors.validation([{ location, message: 'no such site', value: id }]);
    return site;
  }

  async update(caller: Caller, id: string, dto: UpdateSiteDto): Promise<SiteView> {
    const current = await this.getRecord(caller, id);
    if (dto.default_schema_id) await this.schemas.resolveForUse(caller, dto.default_schema_id, 'body.default_schema_id', false);
    const set: Record<string, unknown> = { updated_at: nowIso() };
    if (dto.name !== undefined) set.name = dto.name;
    if (dto.fetch_mode !== undefined) set.fetch_mode = dto.fetch_mode;
    if (dto.default_schema_id !== undefined) set.default_schema_id = dto.default_schema_id;
    // The given options replace the stored ones; headers and cookies are kept unless given.
    if (dto.crawl_options !== undefined) Object.assign(set, this.savedOptions(dto.crawl_options, current));
    if (dto.analysis_result !== undefined) set.analysis_result = plain(dto.analysis_result);
    const updated = await this.repository.updateOwn({ userId: caller.userId }, id, set);
    if (!updated) throw Errors.notFound('Site');
    return toView(updated);
  }

  async remove(caller: Caller, id: string): Promise<{ success: true }> {
    if (!(await this.repository.deleteOwn({ userId: caller.userId }, id))) throw Errors.notFound('Site');
    return { success: true };
  }

  /** The crawl options a site record keeps (saved-fetch-secrets.ts): headers and cookies sealed, their names in the clear. */
  private savedOptions(given: SavedCrawlOptionsDto, current: SiteRecord | null) {
    const { options, ...secrets } = savedCrawlOptions(this.sealer, plain(given) ?? {}, current, 'body.crawl_options');
    return { crawl_options: options, ...secrets };
  }

  private async getRecord(caller: Caller, id: string): Promise<SiteRecord> {
    const site = await this.repository.findOwn({ userId: caller.userId }, id);
    if (!site) throw Errors.notFound('Site');
    return site;
  }
}
