import { join } from 'node:path';
import type { main as productionMain } from '../../apps/api/src/main';
import { testAppExtensions } from './test-app';

/** The built API (dist/) with the test app's extensions: what e2e suites and bench:api start as a child process. */
const BUILT_MAIN = join(__dirname, '..', '..', 'dist', 'apps', 'api', 'src', 'main.js');
void import(BUILT_MAIN).then(({ main }: { main: typeof productionMain }) => main(testAppExtensions()));
