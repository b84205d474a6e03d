/**
 * A command the MongoDB-wire server fails by itself (its backend throws: "Unknown error: …", as its H2 file backend's
 * "Chunk … not found" did under load in the swarm's rolling update, issue 36) is a StoreFailedError, which the API
 * answers 503 with Retry-After like an outage, never 500; the command's own faults (a bad operator, a duplicate key)
 * are not. The failure is provoked on the real server, deterministically: `$mod` by zero is a division the server's
 * backend does not guard (`/ by zero`). The document store never sends `$mod` (its filters are validated), so the
 * command goes through the driver on the same server.
 */
import mongoose from 'mongoose';
import { StoreFailedError, StoreUnavailableError } from '@app/core';
import { toProblem } from '@app/http';
import { asStoreOutage } from '@app/storage';
import { describeWith, uniqueDbName } from '../harness/require-server';

describeWith(['mongodb'], 'a command the store fails by itself', () => {
  let client: InstanceType<typeof mongoose.mongo.MongoClient>;
  let collection: ReturnType<ReturnType<typeof client.db>['collection']>;

  beforeAll(async () => {
    client = await mongoose.mongo.MongoClient.connect(process.env.TEST_MONGODB_URI!, { serverSelectionTimeoutMS: 5000 });
    collection = client.db(uniqueDbName('gleaner_store_failure')).collection('docs');
    await collection.insertOne({ _id: 'a' as never, n: 4 });
  });
  afterAll(async () => {
    await client.db(collection.dbName).dropDatabase();
    await client.close();
  });

  const failure = (work: () => Promise<unknown>): Promise<unknown> =>
    work().then(
      () => {
        throw new Error('the command succeeded');
      },
      (error: unknown) => error,
    );

  it('is a StoreFailedError, answered 503 problem+json with Retry-After, the server message kept out of the answer', async () => {
    const error = await failure(() => collection.find({ n: { $mod: [0, 0] } }).toArray());
    expect(error).toMatchObject({ name: 'MongoServerError', message: expect.stringMatching(/^Unknown error/) });
    const mapped = asStoreOutage(error);
    expect(mapped).toBeInstanceOf(StoreFailedError);
    expect(mapped).not.toBeInstanceOf(StoreUnavailableError); // queue work uses an attempt on it, unlike an outage
    expect((mapped as Error).cause).toBe(error);
    const problem = toProblem(new Error('creating the job failed', { cause: mapped }), '/api/v1/extract', 'r1');
    expect(problem.status).toBe(503);
    expect(problem.headers['retry-after']).toBe('5');
    expect(problem.body).toMatchObject({ type: '/problems/service-unavailable', status: 503 });
    expect(JSON.stringify(problem.body)).not.toMatch(/zero|Unknown error/);
    // The server goes on answering: the failure was one command's.
    expect(await collection.countDocuments({})).toBe(1);
  });

  it("leaves the command's own faults as they are: a bad operator, a duplicate key", async () => {
    const badOperator = await failure(() => collection.find({ n: { $foo: 1 } }).toArray());
    expect(badOperator).toMatchObject({ name: 'MongoServerError', code: 2 });
    expect(asStoreOutage(badOperator)).toBe(badOperator);
    const duplicate = await failure(() => collection.insertOne({ _id: 'a' as never, n: 5 }));
    expect(duplicate).toMatchObject({ code: 11000 });
    expect(asStoreOutage(duplicate)).toBe(duplicate);
  });
});
