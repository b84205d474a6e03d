import { Controller, Get, Param } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentCaller, RequiresScope, type Caller } from '@app/auth';
import { JobsService } from '@app/jobs';
import { WebhooksService } from '@app/webhooks';

@ApiTags('Jobs')
@ApiBearerAuth()
@Controller('api/v1/jobs')
@RequiresScope('jobs')
export class JobWebhooksController {
  constructor(
    private readonly jobs: JobsService,
    private readonly webhooks: WebhooksService,
  ) {}

  @Get(':id/webhooks')
  @ApiOperation({ summary: 'Every webhook delivery attempt of this job, oldest first' })
  async deliveries(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    await this.jobs.getRecord(caller, id);
    return { job_id: id, deliveries: await this.webhooks.deliveriesOfJob({ userId: caller.userId }, id) };
  }
}
