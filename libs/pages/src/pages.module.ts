import { Module } from '@nestjs/common';
import { PageLoaderService } from './page-loader.service';

/** The page pipeline (fetch → content) of a crawler process: one browser pool, one content pool. */
@Module({
  providers: [PageLoaderService],
  exports: [PageLoaderService],
})
export class PagesModule {}
