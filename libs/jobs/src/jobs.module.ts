import { Module } from '@nestjs/common';
import { JobStreamService } from './job-stream.service';
import { JobsRepository } from './jobs.repository';
import { JobsService } from './jobs.service';
import { UsageService } from './usage.service';

@Module({
  providers: [JobsRepository, JobsService, JobStreamService, UsageService],
  exports: [JobsRepository, JobsService, JobStreamService, UsageService],
})
export class JobsModule {}
