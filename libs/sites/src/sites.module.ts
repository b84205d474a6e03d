import { Module } from '@nestjs/common';
import { SavedSchemasModule } from '@app/saved-schemas';
import { SitesRepository } from './sites.repository';
import { SitesService } from './sites.service';

@Module({ imports: [SavedSchemasModule], providers: [SitesRepository, SitesService], exports: [SitesService] })
export class SitesModule {}
