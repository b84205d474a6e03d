import { MongoDocumentStore } from '@app/storage';
import { describeWith, uniqueDbName } from '../harness/require-server';
import { duplicateRaceContract } from './duplicate-index.contract';

describeWith(['mongodb'], 'DuplicateIndex on the MongoDB-wire server', () => {
  duplicateRaceContract(
    'mongodb',
    () =>
      MongoDocumentStore.connect(process.env.TEST_MONGODB_URI!, { dbName: uniqueDbName('gleaner_dedup'), serverSelectionTimeoutMS: 5000 }),
    (store) => store.close(),
    // 128 schedules: each operation is a round trip to the server.
    7,
  );
});
