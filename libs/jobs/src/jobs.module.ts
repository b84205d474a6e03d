import { Module } from '@nestjs/common';
import { JobStreamService } from './job-stream.service';
import { JobsRepository } from './jobs.repository';
import { JobsService } from './jobs.service';

@Module({
  providers: [JobsRepository, JobsService, JobStreamService],
  exports: [JobsRepository, JobsService, JobStreamService],
})
export class JobsModule {}
