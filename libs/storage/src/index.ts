export * from './document-store.port';
export { MongoDocumentStore, type MongoDocumentStoreOptions } from './mongo/mongo-document-store';
export { SqliteDocumentStore, type SqliteDocumentStoreOptions } from './sqlite/sqlite-document-store';
export { InvalidFilterError } from './sqlite/sqlite-filter';
