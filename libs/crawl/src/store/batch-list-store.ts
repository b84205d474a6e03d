import { nowIso } from '@app/core';
import type { Collection } from '@app/storage';
import { LIST_CHUNK_SIZE, type ListChunkRecord } from '../crawl.types';

/**
 * A batch's URL list (`batch_lists`), stored in chunks before its job exists and read back by the
 * crawl's list seeding (owner/list-seeding.ts).
 */
export class BatchListStore {
  constructor(private readonly lists: Collection<ListChunkRecord>) {}

  /** Stores a batch's URL list (canonical, distinct) in chunks, before its job exists; returns the chunk count. */
  async storeList(listId: string, userId: string, urls: string[]): Promise<number> {
    const now = nowIso();
    const chunks: ListChunkRecord[] = [];
    for (let start = 0, chunk = 0; start < urls.length; start += LIST_CHUNK_SIZE, chunk++) {
      chunks.push({
        _id: `${listId}:${chunk}`,
        list_id: listId,
        user_id: userId,
        chunk,
        start,
        urls: urls.slice(start, start + LIST_CHUNK_SIZE),
        created_at: now,
      });
    }
    for (let i = 0; i < chunks.length; i += 20) await this.lists.insertMany(chunks.slice(i, i + 20));
    return chunks.length;
  }

  /** Chunk `chunk` of a list, or null past its end. */
  listChunk(listId: string, chunk: number): Promise<ListChunkRecord | null> {
    return this.lists.findOne({ _id: `${listId}:${chunk}` });
  }

  /** A list every URL of which is in the crawl's frontier: no longer needed. */
  async dropList(listId: string): Promise<void> {
    await this.lists.deleteMany({ list_id: listId });
  }

  /** Every URL list of the owner, also one whose batch never got a job (its deletion). */
  deleteListsOf(owner: { userId: string }): Promise<number> {
    return this.lists.deleteMany({ user_id: owner.userId });
  }
}
