import { join } from 'node:path';
import type { main as productionMain } from '../../apps/crawler/src/main';
import { testAppExtensions } from './test-app';

/** The built crawler (dist/) with the test app's extensions, for e2e suites that start it as a child process. */
const BUILT_MAIN = join(__dirname, '..', '..', 'dist', 'apps', 'crawler', 'src', 'main.js');
void import(BUILT_MAIN).then(({ main }: { main: typeof productionMain }) => main(testAppExtensions()));
