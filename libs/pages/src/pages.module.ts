import { Module } from '@nestjs/common';
import { AuthProfilesModule } from '@app/auth-profiles';
import { PageLoaderService } from './page-loader.service';

/** The page pipeline (fetch → content) of a crawler process: one browser pool, one content pool. */
@Module({
  imports: [AuthProfilesModule],
  providers: [PageLoaderService],
  exports: [PageLoaderService],
})
export class PagesModule {}
