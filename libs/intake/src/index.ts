export * from './llm-config-storage';
export * from './job-intake.service';
export * from './intake.module';
export * from './fetch-control';
export * from './dto/fetch-control.dto';
export * from './failure-mapping';
