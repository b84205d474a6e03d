import { Global, Module } from '@nestjs/common';
import { join } from 'node:path';
import { IntakeModule } from '@app/intake';
import { CONTENT_WORKER_FILE } from '@app/pages';
import type { AppExtensions } from '@app/worker';
import { TestJobHandler } from './test-job.handler';
import { TestJobsController } from './test-jobs.controller';

/**
 * The test app: the production app plus what only tests need, mounted through AppExtensions so that
 * none of it is in the production build (docs/architecture.md "Test-only code"):
 * - the `test` job type (TestJobHandler) and POST /api/v1/test-jobs, which drive the job machinery;
 * - a content worker with crash and hang hooks (content-test.worker.ts).
 * In-process suites pass `testAppExtensions()` to createApiApp; child processes run api-main / crawler-main,
 * compiled by build.ts against the built app in dist/.
 */
@Module({ imports: [IntakeModule], controllers: [TestJobsController] })
class TestJobsApiModule {}

/** Same file name as this module: `.ts` when running from source (jest), `.js` once compiled. */
const CONTENT_TEST_WORKER = join(__dirname, `content-test.worker${__filename.endsWith('.ts') ? '.ts' : '.js'}`);

@Global()
@Module({ providers: [{ provide: CONTENT_WORKER_FILE, useValue: CONTENT_TEST_WORKER }], exports: [CONTENT_WORKER_FILE] })
class ContentTestHooksModule {}

export function testAppExtensions(): AppExtensions {
  return { modules: [TestJobsApiModule, ContentTestHooksModule], jobHandlers: [TestJobHandler] };
}
