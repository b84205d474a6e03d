export * from './url-canon';
export * from './crawl-input';
export * from './crawl-scope';
export * from './crawl.types';
export * from './crawl.repository';
export * from './crawl-job.handler';
export * from './crawl.module';
