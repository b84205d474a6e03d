import { Module } from '@nestjs/common';
import { SavedSchemasModule } from '@app/saved-schemas';
import { SitesRepository } from './sites.repository';
import { SitesService } from './sites.service';
import { SitesTenantErasure } from './sites-tenant-erasure';

@Module({ imports: [SavedSchemasModule], providers: [SitesRepository, SitesService, SitesTenantErasure], exports: [SitesService] })
export class SitesModule {}
