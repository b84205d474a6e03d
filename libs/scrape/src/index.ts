export { ScrapeJobHandler } from './scrape-job.handler';
export { ScrapeRequestsService } from './scrape-requests.service';
export { ScrapeModule, ScrapeWorkerModule } from './scrape.module';
export { ScrapeRequestDto, ScrapeResponse } from './dto/scrape-request.dto';
