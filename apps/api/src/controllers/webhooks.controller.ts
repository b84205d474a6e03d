import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentCaller, RequiresFullAccess, SuccessResponse, type Caller } from '@app/auth';
import { CLIENT_WEBHOOK_ID, WebhookBodyDto, WebhookListResponse, WebhookResponse, WebhooksService } from '@app/webhooks';
import { ApiProblems } from '../openapi-constraints';

@ApiTags('Webhooks')
@ApiBearerAuth()
@Controller('api/v1/webhooks')
@RequiresFullAccess()
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @HttpCode(201)
  @ApiProblems(409)
  @ApiOperation({ summary: 'Create a webhook with a server-assigned id' })
  @ApiCreatedResponse({ type: WebhookResponse })
  create(@CurrentCaller() caller: Caller, @Body() dto: WebhookBodyDto) {
    return this.webhooks.create(caller, dto);
  }

  @Put(':id')
  @ApiProblems(409)
  @ApiParam({ name: 'id', schema: { type: 'string', pattern: CLIENT_WEBHOOK_ID.source } })
  @ApiOperation({ summary: 'Create (201) or replace (200) the webhook with this id (1-64 letters, digits, - or _)' })
  @ApiOkResponse({ type: WebhookResponse })
  @ApiCreatedResponse({ type: WebhookResponse })
  async put(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Body() dto: WebhookBodyDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const { created, webhook } = await this.webhooks.put(caller, id, dto);
    void reply.status(created ? 201 : 200);
    return webhook;
  }

  @Get()
  @ApiOkResponse({ type: WebhookListResponse })
  list(@CurrentCaller() caller: Caller) {
    return this.webhooks.list(caller);
  }

  @Get(':id')
  @ApiOkResponse({ type: WebhookResponse })
  get(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.webhooks.get(caller, id);
  }

  @Get(':id/deliveries')
  @ApiOperation({ summary: 'Latest deliveries of this webhook (newest first, at most 100)' })
  deliveries(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.webhooks.deliveries(caller, id);
  }

  @Delete(':id')
  @ApiOkResponse({ type: SuccessResponse })
  remove(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.webhooks.remove(caller, id);
  }
}
