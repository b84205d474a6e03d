import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { FetchMode } from '@app/fetch';
import { DOCUMENT_STORE, type Collection, type DocumentStore } from '@app/storage';

export interface SiteRecord {
  _id: string;
  user_id: string;
  organization_id: string;
  url: string;
  domain: string;
  name: string;
  fetch_mode: FetchMode;
  default_schema_id: string | null;
  crawl_options: Record<string, unknown>;
  analysis_result: Record<string, unknown> | null;
  /** The names of the kept headers and cookies, in the clear (a response shows them masked); null when none. */
  fetch_secret_names?: { headers: string[]; cookies: string[] } | null;
  /** Their values, sealed by the SECRET_SEALER (saved-fetch-secrets.ts); never in `crawl_options`. */
  fetch_secrets_sealed?: string | null;
  created_at: string;
  updated_at: string;
  [key: string]: unknown;
}

/** The only code that touches sites; every query is scoped by the owner. */
@Injectable()
export class SitesRepository implements OnModuleInit {
  private sites!: Collection<SiteRecord>;

  constructor(@Inject(DOCUMENT_STORE) private readonly store: DocumentStore) {}

  async onModuleInit(): Promise<void> {
    this.sites = await this.store.collection<SiteRecord>({ name: 'sites', indexes: [{ fields: { user_id: 1, created_at: -1 } }] });
  }

  insert(site: SiteRecord): Promise<void> {
    return this.sites.insertOne(site);
  }

  findOwn(owner: { userId: string }, id: string): Promise<SiteRecord | null> {
    return this.sites.findOne({ _id: id, user_id: owner.userId });
  }

  listOwn(owner: { userId: string }): Promise<SiteRecord[]> {
    return this.sites.find({ user_id: owner.userId }, { sort: { created_at: -1 }, limit: 1000 });
  }

  updateOwn(owner: { userId: string }, id: string, set: Record<string, unknown>): Promise<SiteRecord | null> {
    return this.sites.findOneAndUpdate({ _id: id, user_id: owner.userId }, { $set: set }, { returnDocument: 'after' });
  }

  deleteOwn(owner: { userId: string }, id: string): Promise<boolean> {
    return this.sites.deleteOne({ _id: id, user_id: owner.userId });
  }

  /** Every site of the owner (its deletion). */
  deleteAllOf(owner: { userId: string }): Promise<number> {
    return this.sites.deleteMany({ user_id: owner.userId });
  }
}
