import { Injectable, type OnModuleInit } from '@nestjs/common';
import { parse as parseYaml } from 'yaml';
import type { Caller } from '@app/auth';
import { AppError, Errors, newId, nowIso } from '@app/core';
import { parseSchema, type ParsedSchema } from '@app/schema';
import type { CreateSchemaDto, UpdateSchemaDto } from './dto/schema.dto';
import { PLATFORM_SCHEMAS_YAML } from './platform-schemas';
import { SavedSchemasRepository, type SavedSchemaFields, type SavedSchemaRecord } from './saved-schemas.repository';

export interface SchemaView extends SavedSchemaFields {
  id: string;
}

const toView = (r: SavedSchemaRecord): SchemaView => ({
  id: r._id,
  name: r.name,
  description: r.description,
  category: r.category,
  schema_yaml: r.schema_yaml,
  tags: r.tags,
  visibility: r.visibility,
  is_platform: r.is_platform,
  usage_count: r.usage_count,
  organization_id: r.organization_id,
  user_id: r.user_id,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

interface PlatformSchemaData {
  id: string;
  name: string;
  category: string;
  description: string;
  tags: string[];
  schema_yaml: string;
}

function loadPlatformSchemas(): PlatformSchemaData[] {
  return parseYaml(PLATFORM_SCHEMAS_YAML) as PlatformSchemaData[];
}

@Injectable()
export class SavedSchemasService implements OnModuleInit {
  constructor(private readonly repository: SavedSchemasRepository) {}

  async onModuleInit(): Promise<void> {
    const now = nowIso();
    for (const data of loadPlatformSchemas()) {
      parseSchema(data.schema_yaml, `platform:${data.id}`); // shipped data must be valid
      await this.repository.upsertPlatform({
        _id: data.id,
        user_id: null,
        organization_id: null,
        name: data.name,
        description: data.description,
        category: data.category,
        schema_yaml: data.schema_yaml,
        tags: data.tags,
        visibility: 'public',
        is_platform: true,
        usage_count: 0,
        created_at: now,
        updated_at: now,
      });
    }
  }

  async create(caller: Caller, dto: CreateSchemaDto): Promise<SchemaView> {
    parseSchema(dto.schema_yaml, 'body.schema_yaml');
    const now = nowIso();
    const record: SavedSchemaRecord = {
      _id: newId(),
      user_id: caller.userId,
      organization_id: caller.organizationId,
      name: dto.name,
      description: dto.description ?? '',
      category: dto.category ?? '',
      schema_yaml: dto.schema_yaml,
      tags: dto.tags ?? [],
      visibility: dto.visibility ?? 'private',
      is_platform: false,
      usage_count: 0,
      created_at: now,
      updated_at: now,
    };
    await this.repository.insert(record);
    return toView(record);
  }

  async list(caller: Caller): Promise<{ schemas: SchemaView[] }> {
    return { schemas: (await this.repository.listReadable({ userId: caller.userId })).map(toView) };
  }

  async get(caller: Caller, id: string): Promise<SchemaView> {
    const schema = await this.repository.findReadable({ userId: caller.userId }, id);
    if (!schema) throw Errors.notFound('Schema');
    return toView(schema);
  }

  async update(caller: Caller, id: string, dto: UpdateSchemaDto): Promise<SchemaView> {
    await this.assertWritable(caller, id);
    if (dto.schema_yaml !== undefined) parseSchema(dto.schema_yaml, 'body.schema_yaml');
    const set: Record<string, unknown> = { updated_at: nowIso() };
    for (const key of ['name', 'description', 'category', 'schema_yaml', 'tags', 'visibility'] as const) {
      if (dto[key] !== undefined) set[key] = dto[key];
    }
    const updated = await this.repository.updateOwn({ userId: caller.userId }, id, set);
    if (!updated) throw Errors.notFound('Schema');
    return toView(updated);
  }

  async remove(caller: Caller, id: string): Promise<{ success: true }> {
    await this.assertWritable(caller, id);
    if (!(await this.repository.deleteOwn({ userId: caller.userId }, id))) throw Errors.notFound('Schema');
    return { success: true };
  }

  /** For extract/crawl `schema_id` and site defaults: a schema the caller may read, parsed; counts a use when asked. */
  async resolveForUse(
    caller: { userId: string },
    id: string,
    location: string,
    countUse: boolean,
  ): Promise<{ schema: SchemaView; parsed: ParsedSchema }> {
    const schema = await this.repository.findReadable(caller, id);
    if (!schema) throw Errors.validation([{ location, message: 'no such schema (or not visible to this key)', value: id }]);
    const parsed = parseSchema(schema.schema_yaml, location);
    if (countUse) await this.repository.countUse(id);
    return { schema: toView(schema), parsed };
  }

  private async assertWritable(caller: Caller, id: string): Promise<void> {
    const schema = await this.repository.findReadable({ userId: caller.userId }, id);
    if (!schema) throw Errors.notFound('Schema');
    if (schema.is_platform) throw new AppError('forbidden', 'Platform schemas are read-only.');
    if (schema.user_id !== caller.userId)
      throw new AppError('forbidden', 'Public schemas of other users are read-only; copy it into a schema of your own to change it.');
  }
}
