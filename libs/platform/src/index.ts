export * from './platform.module';
export * from './lifecycle';
