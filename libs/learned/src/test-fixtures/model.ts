/** A perfect model over the made-up bookshop (shop.ts) for the learned-extraction specs, recording every request. */
import type { ModelRequest } from '../session';
import { book, truth } from './shop';

export function bookNumber(url: string): number {
  return Number(/book-(\d+)$/.exec(url)?.[1]);
}

/**
 * Answers each product page with its book's values, restricted to the fields asked; `tweak` changes an answer
 * (a model that reads a page differently, or a page whose values differ from the book's).
 */
export function perfectModel(tweak: (n: number, answer: Record<string, unknown>) => Record<string, unknown> = (_, a) => a) {
  const requests: ModelRequest[] = [];
  const calls: string[] = [];
  const model = async (request: ModelRequest) => {
    requests.push(request);
    calls.push(request.url);
    const n = bookNumber(request.url);
    const answer = tweak(n, truth(book(n)));
    return Object.fromEntries(request.fields.map((name) => [name, answer[name] ?? null]));
  };
  return { calls, requests, model };
}
