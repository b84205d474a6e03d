import { Module } from '@nestjs/common';
import { AuthProfilesModule } from '@app/auth-profiles';
import { JobsModule } from '@app/jobs';
import { LlmModule } from '@app/llm';
import { SavedSchemasModule } from '@app/saved-schemas';
import { SitesModule } from '@app/sites';
import { WebhooksModule } from '@app/webhooks';
import { JobIntakeService } from './job-intake.service';

@Module({
  imports: [AuthProfilesModule, JobsModule, LlmModule, SitesModule, SavedSchemasModule, WebhooksModule],
  providers: [JobIntakeService],
  exports: [JobIntakeService],
})
export class IntakeModule {}
