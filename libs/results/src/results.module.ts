import { Module } from '@nestjs/common';
import { JobsModule } from '@app/jobs';
import { ResultsDeletion } from './results-deletion';
import { ResultsRepository } from './results.repository';
import { ResultExports } from './result-exports';
import { ResultStore } from './result-store';
import { ResultsService } from './results.service';
import { ScreenshotsRepository } from './screenshots.repository';
import { ScreenshotsService } from './screenshots.service';

@Module({
  imports: [JobsModule],
  providers: [ResultsRepository, ResultStore, ResultExports, ResultsService, ScreenshotsRepository, ScreenshotsService, ResultsDeletion],
  exports: [ResultStore, ResultExports, ResultsService, ScreenshotsService],
})
export class ResultsModule {}
