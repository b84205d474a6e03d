import { Injectable } from '@nestjs/common';
import type { Caller } from '@app/auth';
import { AppError, Errors, newId, nowIso } from '@app/core';
import { duplicateEntryErrors, planChain, type ChainEntry, type ChainEntryInput } from './chain-plan';
import { ChainRepository } from './chain.repository';

const MAX_ATTEMPTS = 5;

/** The caller's ordered provider/model fallback chain. */
@Injectable()
export class LlmChainService {
  constructor(private readonly repository: ChainRepository) {}

  async get(caller: Caller): Promise<{ chain: ChainEntry[] }> {
    return { chain: await this.getChain(caller.userId) };
  }

  /**
   * Replaces the whole chain (an empty list clears it). Concurrent replacements of one user's chain
   * are serialised by a revision check, so ids are never lost or duplicated.
   */
  async replace(caller: Caller, input: { chain: ChainEntryInput[] }): Promise<{ chain: ChainEntry[] }> {
    const duplicates = duplicateEntryErrors(input.chain);
    if (duplicates.length > 0) throw Errors.validation(duplicates);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const current = await this.repository.find(caller);
      const entries = planChain(current?.entries ?? [], input.chain, nowIso());
      if (await this.repository.replace(caller, current?.revision ?? 0, entries, { id: newId(), now: nowIso() })) return { chain: entries };
    }
    throw new AppError('conflict', 'The chain was changed concurrently; retry the request.');
  }

  /** The user's chain in order (position 0 first), disabled entries included. For the extraction side. */
  async getChain(userId: string): Promise<ChainEntry[]> {
    const record = await this.repository.find({ userId });
    return [...(record?.entries ?? [])].sort((a, b) => a.position - b.position);
  }
}
