import { Module } from '@nestjs/common';
import { JobsModule } from '@app/jobs';
import { ResultsRepository } from './results.repository';
import { ResultsService } from './results.service';
import { ScreenshotsRepository } from './screenshots.repository';
import { ScreenshotsService } from './screenshots.service';

@Module({
  imports: [JobsModule],
  providers: [ResultsRepository, ResultsService, ScreenshotsRepository, ScreenshotsService],
  exports: [ResultsService, ScreenshotsService],
})
export class ResultsModule {}
