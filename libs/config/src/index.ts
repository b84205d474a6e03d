export * from './config';
export { envSchema } from './config.schema';
