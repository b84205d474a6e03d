import { Catch, Inject, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { storeFailureOf } from '@app/core';
import { firecrawlError } from '@app/firecrawl';
import { toProblem } from '@app/http';
import { LOGGER, type AppLogger } from '@app/observability';

/** The one global filter: every error leaves as application/problem+json. */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  constructor(@Inject(LOGGER) private readonly logger: AppLogger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    sendProblem(this.logger, exception, request, reply);
  }
}

export function sendProblem(logger: AppLogger, exception: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const path = request.url.split('?')[0];
  // The Firecrawl-compatible API answers errors in Firecrawl's shape (docs/firecrawl.md "Errors").
  if (path.startsWith('/v2/')) return sendFirecrawlError(logger, exception, request, reply, path);
  const problem = toProblem(exception, path, String(request.id));
  if (problem.errorId) {
    logger.error({ err: exception, error_id: problem.errorId, request_id: request.id, path }, 'unhandled error');
  } else if (problem.status === 503 && storeFailureOf(exception)) {
    logger.warn({ err: exception, request_id: request.id, path }, 'the store failed a command: answered 503 with Retry-After');
  }
  if (reply.sent || reply.raw.headersSent) {
    if (!reply.raw.writableEnded) reply.raw.end();
    return;
  }
  void reply.status(problem.status).headers(problem.headers).type('application/problem+json').send(problem.body);
}

function sendFirecrawlError(logger: AppLogger, exception: unknown, request: FastifyRequest, reply: FastifyReply, path: string): void {
  const answer = firecrawlError(exception, path, String(request.id));
  if (answer.errorId) logger.error({ err: exception, error_id: answer.errorId, request_id: request.id, path }, 'unhandled error');
  if (reply.sent || reply.raw.headersSent) {
    if (!reply.raw.writableEnded) reply.raw.end();
    return;
  }
  void reply.status(answer.status).headers(answer.headers).type('application/json').send(answer.body);
}
