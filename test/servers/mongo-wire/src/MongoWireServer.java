import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.MongoVersion;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import java.util.List;

/**
 * Test-only MongoDB-wire server: mongo-java-server's in-memory backend on 127.0.0.1:<port>.
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
    MongoServer server = new MongoServer(new MemoryBackend().version(ANNOUNCED));
    server.bind("127.0.0.1", port);
    System.out.println("mongo-wire listening on 127.0.0.1:" + port);
    System.out.flush();
    Runtime.getRuntime().addShutdownHook(new Thread(server::shutdownNow));
    Thread.currentThread().join();
  }
}
