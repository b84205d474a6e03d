export * from './validation.pipe';
export * from './problem';
export * from './dto-rules';
export * from './json-body';
export * from './dto-metadata';
export * from './map-rules';
