import { Module } from '@nestjs/common';
import { SavedSchemasRepository } from './saved-schemas.repository';
import { SavedSchemasService } from './saved-schemas.service';
import { SchemasTenantErasure } from './schemas-tenant-erasure';

@Module({ providers: [SavedSchemasRepository, SavedSchemasService, SchemasTenantErasure], exports: [SavedSchemasService] })
export class SavedSchemasModule {}
