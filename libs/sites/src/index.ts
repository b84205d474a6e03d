export * from './url-rules';
export * from './dto/crawl-options.dto';
export * from './dto/analysis-result.dto';
export * from './dto/site.dto';
export * from './sites.repository';
export * from './sites.service';
export * from './sites.module';
