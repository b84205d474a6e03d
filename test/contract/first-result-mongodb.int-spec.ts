import { MongoDocumentStore } from '@app/storage';
import { describeWith, uniqueDbName } from '../harness/require-server';
import { firstResultContract } from './first-result.contract';

describeWith(['mongodb'], 'The first result of a one-page job on the MongoDB-wire server', () => {
  firstResultContract(
    'mongodb',
    () =>
      MongoDocumentStore.connect(process.env.TEST_MONGODB_URI!, {
        dbName: uniqueDbName('gleaner_first_result'),
        serverSelectionTimeoutMS: 5000,
      }),
    (store) => store.close(),
  );
});
