export * from './scrape-formats';
export * from './scrape-job-input';
export * from './page-formats';
export * from './scrape-job.handler';
export * from './scrape-requests.service';
export * from './scrape.module';
export * from './dto/scrape-request.dto';
