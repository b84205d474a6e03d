import { GridFsBlobStore } from '@app/archive';
import { MongoDocumentStore } from '@app/storage';
import { describeWith, uniqueDbName } from '../harness/require-server';
import { archiveContract } from './archive.contract';

describeWith(['mongodb'], 'page archive on MongoDB + GridFS', () => {
  const dbName = uniqueDbName('gleaner_archive');
  archiveContract(
    'cluster (MongoDB records, GridFS bodies) on the MongoDB-wire test server',
    async () => ({
      store: await MongoDocumentStore.connect(process.env.TEST_MONGODB_URI!, { dbName, serverSelectionTimeoutMS: 5000 }),
      blobs: await GridFsBlobStore.connect(process.env.TEST_MONGODB_URI!, { dbName, serverSelectionTimeoutMS: 5000 }),
    }),
    async (parts) => {
      await parts.blobs.close();
      await parts.store.close();
    },
  );
});
