import type { DynamicModule, Type } from '@nestjs/common';
import type { JobHandler } from '@app/jobs';

/**
 * What a caller adds to an app process beyond its production composition. The production entry
 * points add nothing; the test apps (test/test-app) add the `test` job type, its controller and a
 * content worker with crash hooks this way, so none of that is in the production build
 * (docs/architecture.md "Test-only code").
 */
export interface AppExtensions {
  /** Imported by the app's root module. */
  modules?: Array<Type | DynamicModule>;
  /** More job handlers for the worker side, when the process runs one (embedded, crawler). */
  jobHandlers?: Array<Type<JobHandler>>;
}
