export type { AppExtensions } from './app-extensions';
export { WorkerModule } from './worker.module';
