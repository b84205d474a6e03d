export * from './validation.pipe';
export * from './problem';
