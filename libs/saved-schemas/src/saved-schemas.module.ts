import { Module } from '@nestjs/common';
import { SavedSchemasRepository } from './saved-schemas.repository';
import { SavedSchemasService } from './saved-schemas.service';

@Module({ providers: [SavedSchemasRepository, SavedSchemasService], exports: [SavedSchemasService] })
export class SavedSchemasModule {}
