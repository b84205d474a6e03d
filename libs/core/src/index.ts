export * from './error-category';
export * from './problems';
export * from './app-error';
export * from './ids';
export * from './secret-sealer';
export * from './secret-box';
export * from './money';
