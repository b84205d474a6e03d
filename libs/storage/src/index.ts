export {
  DOCUMENT_STORE,
  type Collection,
  type CollectionSpec,
  type Doc,
  type DocumentStore,
  type Filter,
  type Update,
  type UpsertEntry,
  type UpsertManyResult,
} from './document-store.port';
export { MongoDocumentStore, openMongoConnection } from './mongo/mongo-document-store';
export { asStoreOutage } from './mongo/mongo-outage';
export { SqliteDocumentStore } from './sqlite/sqlite-document-store';
