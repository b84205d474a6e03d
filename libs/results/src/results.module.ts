import { Module } from '@nestjs/common';
import { JobsModule } from '@app/jobs';
import { ResultsRepository } from './results.repository';
import { ResultsService } from './results.service';

@Module({ imports: [JobsModule], providers: [ResultsRepository, ResultsService], exports: [ResultsService] })
export class ResultsModule {}
