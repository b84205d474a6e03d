import { Module } from '@nestjs/common';
import { JobsModule } from '@app/jobs';
import { ResultsDeletion } from './results-deletion';
import { ResultsRepository } from './results.repository';
import { ResultsService } from './results.service';
import { ScreenshotsRepository } from './screenshots.repository';
import { ScreenshotsService } from './screenshots.service';

@Module({
  imports: [JobsModule],
  providers: [ResultsRepository, ResultsService, ScreenshotsRepository, ScreenshotsService, ResultsDeletion],
  exports: [ResultsService, ScreenshotsService],
})
export class ResultsModule {}
