export { APP_CONFIG, EXIT_CONFIG, loadConfig, loadConfigOrReport, type AppConfig, type Role } from './config';
export { crawlMaxPagesSetting, envSchema } from './config.schema';
export { parseBooleanSetting } from './boolean-setting';
