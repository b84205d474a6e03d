import {
  applyDecorators,
  Injectable,
  SetMetadata,
  UseInterceptors,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiHeader } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { catchError, from, mergeMap, type Observable } from 'rxjs';
import type { Caller } from '@app/auth';
import { AppError, storeFailureOf, storeOutageOf } from '@app/core';
import { UrlListBody } from '@app/http';
import { IdempotencyService } from '@app/jobs';

export const IDEMPOTENT_KEY = 'gleaner:idempotent';

/**
 * A job-creating POST that honours `Idempotency-Key` (docs/api.md "Idempotency-Key"). The interceptor is
 * bound to these routes only: a route without interceptors skips Nest's observable pipeline altogether
 * (a measurable share of a plain read's cost, bench:api).
 */
export const Idempotent = () =>
  applyDecorators(
    SetMetadata(IDEMPOTENT_KEY, true),
    UseInterceptors(IdempotencyInterceptor),
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      description:
        'Any 1-255 visible ASCII characters, unique per request you mean. A retry with the same key and the same request within 24 hours gets the first answer (`Idempotency-Replayed: true`) and starts no second job; the same key with another request is a 422, and while the first is still being answered a 409. Keys are per user.',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
    }),
  );

/**
 * Answers that committed to something: a 2xx, or a problem that names the job it made (a 504 while it goes on, a
 * store's 503 after the job was stored): as the problem to replay, else null.
 */
function committed(error: unknown): AppError | null {
  if (error instanceof AppError) return typeof error.extensions?.job_id === 'string' ? error : null;
  const store = storeOutageOf(error) ?? storeFailureOf(error);
  if (typeof store?.extensions?.job_id !== 'string') return null;
  // A retry with the key gets the same 503 naming the job, never a second job.
  return new AppError('service-unavailable', store.message, {
    detail: store.detail,
    retryAfterSeconds: store.retryAfterSeconds,
    extensions: store.extensions,
  });
}

/** Runs the idempotency rules around the routes marked @Idempotent (IdempotencyService holds them). */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly idempotency: IdempotencyService,
  ) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    if (!this.reflector.get<boolean>(IDEMPOTENT_KEY, context.getHandler())) return next.handle();
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest & { caller?: Caller }>();
    const reply = http.getResponse<FastifyReply>();
    const key = IdempotencyService.checkKey(request.headers['idempotency-key']);
    if (!key || !request.caller) return next.handle();
    const userId = request.caller.userId;
    const body = request.body instanceof UrlListBody ? { list: request.body.urls.map((u) => u.url) } : request.body;
    const fingerprint = IdempotencyService.fingerprint({
      method: request.method,
      path: request.routeOptions?.url ?? request.url,
      query: request.query,
      body,
    });
    const begun = await this.idempotency.begin(userId, key, fingerprint);
    if (begun.kind === 'replay') {
      const { answer } = begun;
      void reply.header('idempotency-replayed', 'true');
      if (answer.status >= 400) throw AppError.fromJSON(answer.body as Parameters<typeof AppError.fromJSON>[0]);
      void reply.status(answer.status);
      for (const [name, value] of Object.entries(answer.headers)) void reply.header(name, value);
      return from(Promise.resolve(answer.body));
    }
    return next.handle().pipe(
      mergeMap(async (result: unknown) => {
        const location = reply.getHeader('location');
        await this.idempotency.complete(userId, key, begun.token, {
          status: reply.statusCode,
          headers: typeof location === 'string' ? { location } : {},
          body: result,
        });
        return result;
      }),
      catchError(async (error: unknown) => {
        const problem = committed(error);
        if (problem) {
          // Remembering may meet the same store trouble: the answer still goes out (the key stays held until it expires).
          await this.idempotency
            .complete(userId, key, begun.token, { status: PROBLEM_STATUS, headers: {}, body: problem.toJSON() })
            .catch(() => undefined);
        } else {
          await this.idempotency.release(userId, key, begun.token).catch(() => undefined);
        }
        throw error;
      }),
    );
  }
}

/** Stored problems are replayed by rethrowing them (their slug gives the status); any status ≥ 400 marks them. */
const PROBLEM_STATUS = 599;
