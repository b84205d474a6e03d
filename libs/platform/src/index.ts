export { openPorts, PlatformModule, type PlatformPorts } from './platform.module';
export { checkReadiness, installShutdown } from './lifecycle';
