import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.MongoVersion;
import java.util.List;

/**
 * Test-only MongoDB-wire server on 127.0.0.1:<port>: mongo-java-server with its in-memory backend, or,
 * given a file, with its H2 (MVStore) backend on that file (DurableH2Backend), which a kill -9 and a
 * restart on the same file survive. On both, a unique index also serves a query that names more fields than
 * its own (NarrowingIndex), where mongo-java-server would scan the collection. Usage: MongoWireServer <port> [<data file> [<bind address>]] (the
 * address is 127.0.0.1 unless given: the store image of `npm run test:swarm` listens on 0.0.0.0).
 * It announces wire version 13 (MongoDB 5.0) because the Node.js driver 7 refuses servers below 9;
 * the commands Gleaner uses (CRUD, findAndModify, createIndexes with unique, count) are implemented by it.
 */
public final class MongoWireServer {
  private static final MongoVersion ANNOUNCED = new MongoVersion() {
    @Override public List<Integer> getVersionArray() { return List.of(5, 0, 0); }
    @Override public int getWireVersion() { return 13; }
  };

  public static void main(String[] args) throws Exception {
    int port = args.length > 0 ? Integer.parseInt(args[0]) : 27017;
    String file = args.length > 1 ? args[1] : null;
    String host = args.length > 2 ? args[2] : "127.0.0.1";
    MongoBackend backend = file == null ? new NarrowingDatabases.Memory() : DurableH2Backend.open(file);
    backend.version(ANNOUNCED);
    MongoServer server = new MongoServer(backend);
    server.bind(host, port);
    System.out.println("mongo-wire listening on " + host + ":" + port + (file == null ? " (in memory)" : " (file " + file + ")"));
    System.out.flush();
    Runtime.getRuntime().addShutdownHook(new Thread(server::shutdownNow));
    Thread.currentThread().join();
  }
}
