import mongoose from 'mongoose';
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

  it('sends the point operations of a request straight to the driver, not through mongoose queries', async () => {
    const store = await MongoDocumentStore.connect(process.env.TEST_MONGODB_URI!, { dbName: `${dbName}_native` });
    try {
      const things = await store.collection<{ _id: string; n: number; tag?: string }>({ name: 'things', indexes: [] });
      const queries = jest.spyOn(mongoose.Query.prototype, 'exec');
      const bulk = jest.spyOn(mongoose.Model, 'insertMany');
      await things.insertOne({ _id: 'a', n: 1, tag: 'x' });
      expect(await things.findOne({ _id: 'a' })).toEqual({ _id: 'a', n: 1, tag: 'x' });
      expect(await things.findOneAndUpdate({ _id: 'a' }, { $inc: { n: 1 } }, { returnDocument: 'before' })).toMatchObject({ n: 1 });
      expect(await things.find({ n: 2 }, { fields: ['n'], sort: { n: 1 }, limit: 5 })).toEqual([{ _id: 'a', n: 2 }]);
      expect(await things.deleteOne({ _id: 'a' })).toBe(true);
      expect(queries).not.toHaveBeenCalled();
      expect(bulk).not.toHaveBeenCalled();
      queries.mockRestore();
      bulk.mockRestore();
    } finally {
      await store.close();
    }
  });

  it('fails to connect to an unreachable server within the selection timeout', async () => {
    await expect(
      MongoDocumentStore.connect('mongodb://127.0.0.1:1/x', {
        serverSelectionTimeoutMS: 300,
      }),
    ).rejects.toThrow();
  });
});
