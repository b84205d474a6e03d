import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP relay to the test Redis that can stop delivering replies to the connections that have sent a blocking
 * read (BRPOPLPUSH): the wire shape of a reply lost across a reconnection, which ioredis awaits forever.
 */
export class LosingRelay {
  private readonly server: Server;
  private readonly blocking = new Set<Socket>();
  /** The connections whose replies are dropped: the blocking readers when swallowing began. */
  private readonly swallowed = new Set<Socket>();
  private readonly sawBlockingRead: Array<() => void> = [];
  blockingConnections = 0;

  private constructor(private readonly target: number) {
    this.server = createServer((client) => this.relay(client));
  }

  static async start(target: number): Promise<LosingRelay> {
    const relay = new LosingRelay(target);
    await new Promise<void>((resolve) => relay.server.listen(0, '127.0.0.1', resolve));
    return relay;
  }

  get port(): number {
    return (this.server.address() as { port: number }).port;
  }

  /** Resolves once some connection has sent a blocking read. */
  blockingReadSeen(): Promise<void> {
    return this.blocking.size > 0 ? Promise.resolve() : new Promise((resolve) => this.sawBlockingRead.push(resolve));
  }

  /** From now on, the connections that sent a blocking read get no reply; resolves when one of them is closed by the client. */
  swallowBlockingReplies(): Promise<void> {
    for (const socket of this.blocking) this.swallowed.add(socket);
    return new Promise((resolve) => {
      for (const socket of this.swallowed) socket.once('close', () => resolve());
    });
  }

  async close(): Promise<void> {
    for (const socket of this.blocking) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private relay(client: Socket): void {
    const upstream = connect(this.target, '127.0.0.1');
    client.on('data', (chunk) => {
      if (/brpoplpush/i.test(chunk.toString('latin1')) && !this.blocking.has(client)) {
        this.blocking.add(client);
        this.blockingConnections++;
        for (const resolve of this.sawBlockingRead.splice(0)) resolve();
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!this.swallowed.has(client)) client.write(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', end);
    upstream.on('error', end);
  }
}
