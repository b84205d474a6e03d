import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { DOCUMENT_STORE, type Collection, type DocumentStore } from '@app/storage';

/** A saved schema's fields, as stored and as shown (SchemaView). */
export interface SavedSchemaFields {
  /** null for platform schemas. */
  user_id: string | null;
  organization_id: string | null;
  name: string;
  description: string;
  category: string;
  schema_yaml: string;
  tags: string[];
  visibility: 'private' | 'public';
  is_platform: boolean;
  usage_count: number;
  created_at: string;
  updated_at: string;
}

export interface SavedSchemaRecord extends SavedSchemaFields {
  _id: string;
  [key: string]: unknown;
}

/**
 * The only code that touches saved schemas. Reads are scoped to what the caller may see (own,
 * public, platform); writes are scoped to the owner.
 */
@Injectable()
export class SavedSchemasRepository implements OnModuleInit {
  private schemas!: Collection<SavedSchemaRecord>;

  constructor(@Inject(DOCUMENT_STORE) private readonly store: DocumentStore) {}

  async onModuleInit(): Promise<void> {
    this.schemas = await this.store.collection<SavedSchemaRecord>({
      name: 'schemas',
      indexes: [{ fields: { user_id: 1, created_at: -1 } }, { fields: { visibility: 1, created_at: -1 } }],
    });
  }

  /** Platform schemas are data shipped with the service: written at start-up, replacing older versions. */
  async upsertPlatform(record: SavedSchemaRecord): Promise<void> {
    const existing = await this.schemas.findOne({ _id: record._id });
    await this.schemas.replaceOne({
      ...record,
      usage_count: existing?.usage_count ?? 0,
      created_at: existing?.created_at ?? record.created_at,
    });
  }

  insert(record: SavedSchemaRecord): Promise<void> {
    return this.schemas.insertOne(record);
  }

  async findReadable(viewer: { userId: string }, id: string): Promise<SavedSchemaRecord | null> {
    const schema = await this.schemas.findOne({ _id: id });
    if (!schema) return null;
    return schema.user_id === viewer.userId || schema.visibility === 'public' || schema.is_platform ? schema : null;
  }

  async listReadable(viewer: { userId: string }): Promise<SavedSchemaRecord[]> {
    const [own, visible] = await Promise.all([
      this.schemas.find({ user_id: viewer.userId }, { sort: { created_at: -1 }, limit: 1000 }),
      this.schemas.find({ visibility: 'public' }, { sort: { created_at: -1 }, limit: 1000 }),
    ]);
    const seen = new Set<string>();
    const out: SavedSchemaRecord[] = [];
    for (const schema of [...own, ...visible]) {
      if (seen.has(schema._id)) continue;
      seen.add(schema._id);
      out.push(schema);
    }
    return out;
  }

  updateOwn(owner: { userId: string }, id: string, set: Record<string, unknown>): Promise<SavedSchemaRecord | null> {
    return this.schemas.findOneAndUpdate(
      { _id: id, user_id: owner.userId, is_platform: false },
      { $set: set },
      { returnDocument: 'after' },
    );
  }

  deleteOwn(owner: { userId: string }, id: string): Promise<boolean> {
    return this.schemas.deleteOne({ _id: id, user_id: owner.userId, is_platform: false });
  }

  async countUse(id: string): Promise<void> {
    await this.schemas.findOneAndUpdate({ _id: id }, { $inc: { usage_count: 1 } });
  }

  /** Every schema of the owner, public ones included (its deletion; platform schemas belong to nobody). */
  deleteAllOf(owner: { userId: string }): Promise<number> {
    return this.schemas.deleteMany({ user_id: owner.userId, is_platform: false });
  }
}
