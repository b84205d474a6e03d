import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { AddressGuard } from '@app/fetch';
import { createGuardedFetch, createModelAgents } from './guarded-fetch';

/** A server that records each request and answers by path. */
async function startServer() {
  const seen: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: string }> = [];
  let half: http.ServerResponse | undefined;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString() });
      if (req.url === '/gzip') {
        const body = gzipSync(JSON.stringify({ ok: 'gzip' }));
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': body.length });
        res.end(body);
      } else if (req.url === '/empty') {
        res.writeHead(204).end();
      } else if (req.url === '/half') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': 1000 });
        res.write('{"partial":');
        half = res;
      } else {
        res.writeHead(201, { 'content-type': 'application/json', 'x-answer': 'yes' });
        res.end(JSON.stringify({ echo: Buffer.concat(chunks).toString() }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    dropHalf: () => half?.destroy(),
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

describe('createGuardedFetch', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  const agents = createModelAgents();
  const open = createGuardedFetch(new AddressGuard({ allowPrivateNetworks: true }), agents);

  beforeAll(async () => (server = await startServer()));
  afterAll(async () => {
    agents.http.destroy();
    await server.close();
  });

  it('sends a string body with its headers and hands the whole answer over (status, headers, JSON)', async () => {
    const res = await open(`${server.url}/echo`, {
      method: 'post',
      headers: { 'Content-Type': 'application/json', 'X-Key': 'k' },
      body: '{"a":"é"}',
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-answer')).toBe('yes');
    expect(await res.json()).toEqual({ echo: '{"a":"é"}' });
    const request = server.seen.at(-1)!;
    expect(request).toMatchObject({ method: 'POST', url: '/echo', body: '{"a":"é"}' });
    expect(request.headers).toMatchObject({
      'content-type': 'application/json',
      'x-key': 'k',
      'content-length': String(Buffer.byteLength('{"a":"é"}')),
    });
  });

  it('takes a Request, a URL object, header arrays and a byte body as fetch does', async () => {
    await open(new Request(`${server.url}/echo`, { method: 'PUT', body: 'from a request', headers: [['x-one', '1']] }));
    expect(server.seen.at(-1)).toMatchObject({ method: 'PUT', body: 'from a request', headers: expect.objectContaining({ 'x-one': '1' }) });
    await open(new URL(`${server.url}/echo`), { method: 'POST', body: new TextEncoder().encode('bytes') });
    expect(server.seen.at(-1)).toMatchObject({ method: 'POST', body: 'bytes' });
    await open(`${server.url}/echo`, { method: 'POST', body: 'plain' });
    expect(server.seen.at(-1)!.headers['content-type']).toBe('text/plain;charset=UTF-8');
  });

  it('undoes gzip, and answers a 204 with no body', async () => {
    const gz = await open(`${server.url}/gzip`);
    expect(gz.headers.get('content-encoding')).toBeNull();
    expect(await gz.json()).toEqual({ ok: 'gzip' });
    const empty = await open(`${server.url}/empty`, { method: 'DELETE' });
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
  });

  it('fails when the endpoint drops the connection half way through its answer', async () => {
    const answer = open(`${server.url}/half`);
    await new Promise<void>((resolve) => {
      const wait = () => (server.seen.at(-1)?.url === '/half' ? resolve() : setImmediate(wait));
      wait();
    });
    server.dropHalf();
    await expect(answer).rejects.toThrow();
  });

  it('refuses an address the guard does not allow, before any connection', async () => {
    const guarded = createGuardedFetch(new AddressGuard(), agents);
    const before = server.seen.length;
    await expect(guarded(`${server.url}/echo`, { method: 'POST', body: 'x' })).rejects.toThrow();
    expect(server.seen.length).toBe(before);
  });

  it('stops on an aborted signal', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(open(`${server.url}/echo`, { signal: controller.signal })).rejects.toThrow('stop');
  });
});
