/**
 * A counting TCP proxy for the MongoDB wire protocol: the apps under benchmark connect to it instead of
 * the store, and it counts, per command and collection, the requests, the bytes each way, the documents
 * written (insert/update/delete/findAndModify entries) and the documents returned (cursor batches).
 * Counting happens outside the measured processes (no driver hook, no flag in production code), and the
 * bytes are those a real MongoDB would receive and send: the wire format is the same.
 *
 * Driver housekeeping (hello/isMaster heartbeats, ping, endSessions, …) is counted under `background`
 * so per-page figures can leave it out: it scales with replicas and time, not with pages.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { BSON } from 'mongodb';

const OP_COMPRESSED = 2012;
const OP_QUERY = 2004;
const OP_MSG = 2013;
const MORE_TO_COME = 1 << 1;

/** Commands the driver sends on its own (server monitoring, sessions, handshakes), whatever the workload. */
export const BACKGROUND_COMMANDS = new Set([
  'hello',
  'ismaster',
  'isMaster',
  'ping',
  'endSessions',
  'buildInfo',
  'buildinfo',
  'saslStart',
  'saslContinue',
  'getParameter',
  'serverStatus',
  'killCursors',
]);

export interface CommandCounts {
  /** Requests sent (a bulk insert of 10 documents is one). */
  n: number;
  request_bytes: number;
  reply_bytes: number;
  /** Documents the request writes: inserted documents, update and delete statements, 1 per findAndModify. */
  docs_written: number;
  /** Documents the replies carried in cursor batches (find, aggregate, getMore) or as a findAndModify value. */
  docs_returned: number;
}

export type WireCounts = Record<string, CommandCounts>;

/** What one request message says: its command, collection and how many documents it writes. */
export interface RequestFacts {
  command: string;
  collection: string | null;
  docsWritten: number;
}

const emptyCounts = (): CommandCounts => ({ n: 0, request_bytes: 0, reply_bytes: 0, docs_written: 0, docs_returned: 0 });

function cstringEnd(buf: Buffer, from: number): number {
  const end = buf.indexOf(0, from);
  if (end < 0) throw new Error('unterminated cstring');
  return end;
}

function readDoc(buf: Buffer, at: number): { doc: Record<string, unknown>; next: number } {
  const size = buf.readInt32LE(at);
  return { doc: BSON.deserialize(buf.subarray(at, at + size), { promoteBuffers: true }), next: at + size };
}

/** The body document and the document sequences (kind 1 sections) of an OP_MSG, `message` being the whole message. */
export function parseOpMsg(message: Buffer): { body: Record<string, unknown>; sequences: Record<string, unknown[]>; flags: number } {
  const flags = message.readUInt32LE(16);
  const end = flags & 1 ? message.length - 4 : message.length; // checksumPresent: a CRC-32C trails the sections
  let at = 20;
  let body: Record<string, unknown> = {};
  const sequences: Record<string, unknown[]> = {};
  while (at < end) {
    const kind = message[at++];
    if (kind === 0) {
      const read = readDoc(message, at);
      body = read.doc;
      at = read.next;
    } else if (kind === 1) {
      const size = message.readInt32LE(at);
      const stop = at + size;
      const idEnd = cstringEnd(message, at + 4);
      const id = message.toString('utf8', at + 4, idEnd);
      const docs: unknown[] = [];
      let p = idEnd + 1;
      while (p < stop) {
        const read = readDoc(message, p);
        docs.push(read.doc);
        p = read.next;
      }
      sequences[id] = docs;
      at = stop;
    } else {
      throw new Error(`unknown OP_MSG section kind ${kind}`);
    }
  }
  return { body, sequences, flags };
}

function lengthOf(value: unknown): number {
  return Array.isArray(value) ? value.length : 0;
}

/** Command, collection and documents written of a request body (+ its document sequences). */
export function requestFacts(body: Record<string, unknown>, sequences: Record<string, unknown[]> = {}): RequestFacts {
  const command = Object.keys(body)[0] ?? '(empty)';
  const first = body[command];
  const collection = typeof first === 'string' ? first : typeof body.collection === 'string' ? body.collection : null;
  const many = (field: string) => lengthOf(body[field]) + lengthOf(sequences[field]);
  let docsWritten = 0;
  if (command === 'insert') docsWritten = many('documents');
  else if (command === 'update') docsWritten = many('updates');
  else if (command === 'delete') docsWritten = many('deletes');
  else if (command === 'findAndModify' || command === 'findandmodify') docsWritten = 1;
  else if (command === 'bulkWrite') docsWritten = many('ops');
  return { command, collection, docsWritten };
}

/** Documents a reply carries: a cursor batch's length, or 1 for a findAndModify value. */
export function replyDocs(body: Record<string, unknown>): number {
  const cursor = body.cursor as { firstBatch?: unknown; nextBatch?: unknown } | undefined;
  if (cursor) return lengthOf(cursor.firstBatch) + lengthOf(cursor.nextBatch);
  if ('value' in body && body.value !== null && body.value !== undefined) return 1;
  return 0;
}

/** Splits a byte stream into wire messages (length-prefixed), whatever the chunking. */
export class MessageSplitter {
  private pending: Buffer[] = [];
  private size = 0;

  push(chunk: Buffer, onMessage: (message: Buffer) => void): void {
    this.pending.push(chunk);
    this.size += chunk.length;
    for (;;) {
      if (this.size < 4) return;
      const head = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending);
      this.pending = [head];
      const length = head.readInt32LE(0);
      if (length < 16) throw new Error(`bad wire message length ${length}`);
      if (head.length < length) return;
      onMessage(head.subarray(0, length));
      const rest = head.subarray(length);
      this.pending = rest.length > 0 ? [rest] : [];
      this.size = rest.length;
    }
  }
}

export interface MongoWireCounter {
  /** `mongodb://127.0.0.1:<port>`: give it to the apps in place of the store's address. */
  url: string;
  /** Counts since the start (or the last reset), keyed `command collection` (`command` alone when none). */
  snapshot(): WireCounts;
  reset(): void;
  close(): Promise<void>;
}

/** Proxies 127.0.0.1:<free port> to the store at `upstreamUrl` (mongodb://host:port), counting what passes. */
export async function startMongoWireCounter(upstreamUrl: string): Promise<MongoWireCounter> {
  const upstream = new URL(upstreamUrl);
  let counts = new Map<string, CommandCounts>();
  const sockets = new Set<Socket>();
  const bump = (key: string, add: Partial<CommandCounts>) => {
    let c = counts.get(key);
    if (!c) counts.set(key, (c = emptyCounts()));
    c.n += add.n ?? 0;
    c.request_bytes += add.request_bytes ?? 0;
    c.reply_bytes += add.reply_bytes ?? 0;
    c.docs_written += add.docs_written ?? 0;
    c.docs_returned += add.docs_returned ?? 0;
  };

  const server: Server = createServer((client) => {
    const store = connect(Number(upstream.port), upstream.hostname);
    sockets.add(client).add(store);
    // requestID → the key its replies are counted under (kept while the server has more to send).
    const open = new Map<number, string>();
    const fromClient = new MessageSplitter();
    const fromStore = new MessageSplitter();
    const onRequest = (message: Buffer) => {
      const requestId = message.readInt32LE(4);
      const opCode = message.readInt32LE(12);
      let key = `(opcode ${opCode})`;
      let written = 0;
      if (opCode === OP_MSG) {
        const { body, sequences } = parseOpMsg(message);
        const facts = requestFacts(body, sequences);
        key = facts.collection ? `${facts.command} ${facts.collection}` : facts.command;
        written = facts.docsWritten;
      } else if (opCode === OP_QUERY) {
        const nameEnd = cstringEnd(message, 20);
        const { doc } = readDoc(message, nameEnd + 1 + 8);
        key = requestFacts(doc).command; // the legacy handshake (isMaster / hello)
      } else if (opCode === OP_COMPRESSED) {
        key = '(compressed)';
      }
      open.set(requestId, key);
      bump(key, { n: 1, request_bytes: message.length, docs_written: written });
    };
    const onReply = (message: Buffer) => {
      const responseTo = message.readInt32LE(8);
      const opCode = message.readInt32LE(12);
      const key = open.get(responseTo) ?? '(unmatched reply)';
      let returned = 0;
      let more = false;
      if (opCode === OP_MSG) {
        const parsed = parseOpMsg(message);
        returned = replyDocs(parsed.body);
        more = (parsed.flags & MORE_TO_COME) !== 0;
      }
      if (!more) open.delete(responseTo);
      bump(key, { reply_bytes: message.length, docs_returned: returned });
    };
    const fail = (error: unknown) => {
      console.error('mongo-wire counter:', error);
      client.destroy();
      store.destroy();
    };
    client.on('data', (chunk: Buffer) => {
      try {
        fromClient.push(chunk, onRequest);
      } catch (error) {
        return fail(error);
      }
      store.write(chunk);
    });
    store.on('data', (chunk: Buffer) => {
      try {
        fromStore.push(chunk, onReply);
      } catch (error) {
        return fail(error);
      }
      client.write(chunk);
    });
    const close = () => {
      client.destroy();
      store.destroy();
      sockets.delete(client);
      sockets.delete(store);
    };
    client.on('close', close).on('error', close);
    store.on('close', close).on('error', close);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `mongodb://127.0.0.1:${port}`,
    snapshot: () => Object.fromEntries([...counts].sort((a, b) => a[0].localeCompare(b[0])).map(([k, v]) => [k, { ...v }])),
    reset: () => void (counts = new Map()),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** `after - before`, per key (keys with nothing left out). */
export function diffCounts(after: WireCounts, before: WireCounts): WireCounts {
  const out: WireCounts = {};
  for (const [key, a] of Object.entries(after)) {
    const b = before[key] ?? emptyCounts();
    const d: CommandCounts = {
      n: a.n - b.n,
      request_bytes: a.request_bytes - b.request_bytes,
      reply_bytes: a.reply_bytes - b.reply_bytes,
      docs_written: a.docs_written - b.docs_written,
      docs_returned: a.docs_returned - b.docs_returned,
    };
    if (d.n !== 0 || d.reply_bytes !== 0) out[key] = d;
  }
  return out;
}

/** Whether a count key (`command collection`) is driver housekeeping. */
export function isBackground(key: string): boolean {
  return BACKGROUND_COMMANDS.has(key.split(' ')[0]);
}
