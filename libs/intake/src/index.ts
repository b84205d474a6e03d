export * from './job-intake.service';
export * from './intake.module';
export * from './dto/fetch-control.dto';
export * from './failure-mapping';
