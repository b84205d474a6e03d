import { join } from 'node:path';
import type { DocumentStore } from './document-store.port';
import { MongoDocumentStore } from './mongo/mongo-document-store';
import { SqliteDocumentStore } from './sqlite/sqlite-document-store';

export * from './document-store.port';
export { MongoDocumentStore, type MongoDocumentStoreOptions } from './mongo/mongo-document-store';
export { SqliteDocumentStore, type SqliteDocumentStoreOptions } from './sqlite/sqlite-document-store';
export { InvalidFilterError } from './sqlite/sqlite-filter';

/** MongoDB when a URI is configured (cluster mode), otherwise the embedded SQLite file `<dataDir>/gleaner.db`. */
export async function openDocumentStore(config: { mongodbUri?: string; dataDir: string }): Promise<DocumentStore> {
  if (config.mongodbUri) return MongoDocumentStore.connect(config.mongodbUri);
  return SqliteDocumentStore.open({ file: join(config.dataDir, 'gleaner.db') });
}
