export { JobIntakeService, refuseLearnedFromPrompt, type FieldsAt } from './job-intake.service';
export { completedPage, type PageOutcome } from './failure-mapping';
export { IntakeModule } from './intake.module';
export { JobFetchFields } from './dto/fetch-control.dto';
export { MAX_PROMPT_LENGTH, PromptProperty, SchemaIdProperty, SchemaProperty, SiteIdProperty } from './dto/extract-target.properties';
