export { JOB_HANDLERS, type JobContext, type JobHandler } from '@app/jobs';
