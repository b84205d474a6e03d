export * from './validation.pipe';
export * from './problem';
export * from './dto-rules';
export * from './json-body';
export * from './dto-metadata';
export * from './url-list-body';
export * from './map-rules';
export * from './dto-json-schema';
