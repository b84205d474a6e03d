import { MongoDocumentStore } from '@app/storage';
import { describeWith, uniqueDbName } from '../harness/require-server';
import { storageContract } from './storage.contract';

describeWith(['mongodb'], 'MongoDocumentStore', () => {
  const dbName = uniqueDbName('gleaner_storage');

  storageContract(
    'mongodb',
    () =>
      MongoDocumentStore.connect(process.env.TEST_MONGODB_URI!, {
        dbName,
        serverSelectionTimeoutMS: 5000,
      }),
    async (store) => {
      await store.close();
    },
    // The MongoDB-wire stand-in (mongo-java-server) can hand two concurrent updates the same
    // post-image; the updates themselves stay atomic (see storageContract).
    { exactPostImages: false },
  );

  it('two stores coexist in one process on separate connections', async () => {
    const a = await MongoDocumentStore.connect(process.env.TEST_MONGODB_URI!, {
      dbName: `${dbName}_a`,
    });
    const b = await MongoDocumentStore.connect(process.env.TEST_MONGODB_URI!, {
      dbName: `${dbName}_b`,
    });
    const ca = await a.collection({ name: 'things', indexes: [] });
    const cb = await b.collection({ name: 'things', indexes: [] });
    await ca.insertOne({ _id: 'x', from: 'a' });
    expect(await cb.findOne({ _id: 'x' })).toBeNull();
    await a.close();
    await expect(cb.count({})).resolves.toBe(0);
    expect(b.kind).toBe('mongodb');
    await b.close();
  });

  it('fails to connect to an unreachable server within the selection timeout', async () => {
    await expect(
      MongoDocumentStore.connect('mongodb://127.0.0.1:1/x', {
        serverSelectionTimeoutMS: 300,
      }),
    ).rejects.toThrow();
  });
});
