export * from './llm-config-storage';
export * from './job-intake.service';
export * from './intake.module';
