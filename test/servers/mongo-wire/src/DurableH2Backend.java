import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.h2.H2Backend;
import de.bwaldvogel.mongo.bson.Document;
import io.netty.channel.Channel;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.h2.mvstore.MVStore;

/**
 * mongo-java-server's H2 (MVStore) backend on a file, made to survive kill -9 with nothing acknowledged lost.
 *
 * Stock H2Backend commits in MVStore's background thread about once a second: a kill -9 loses the last
 * second of acknowledged writes, and a commit can land in the middle of a command (a document stored, its
 * unique index entry not yet), which a restart would then read back. Here the background commit is off;
 * every write command runs under a shared lock and its reply waits until a commit taken under the exclusive
 * lock covers it, so a commit only ever holds whole commands. Concurrent writers share one commit (group
 * commit). A commit writes to the file (the OS page cache), which a killed process cannot lose; it is not
 * fsynced: surviving a power cut is not this stand-in's job.
 */
final class DurableH2Backend extends H2Backend {
  /** Commands that never change data: no lock, no commit. Everything else is treated as a write. */
  private static final Set<String> READS = Set.of(
      "find", "getmore", "count", "distinct", "aggregate", "listcollections", "listindexes", "listdatabases",
      "hello", "ismaster", "ping", "buildinfo", "serverstatus", "killcursors", "endsessions", "whatsmyuri",
      "getparameter", "getcmdlineopts", "hostinfo", "getlog", "dbstats", "collstats", "connectionstatus",
      "getfreemonitoringstatus", "currentop", "getlasterror");

  private final MVStore store;
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock(true);
  private final AtomicLong finishedWrites = new AtomicLong();
  private final Object commitMutex = new Object();
  private long durableWrites = 0; // guarded by commitMutex
  private final ScheduledExecutorService maintenance = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "mvstore-maintenance");
    t.setDaemon(true);
    return t;
  });

  static DurableH2Backend open(String file) {
    MVStore store = new MVStore.Builder().fileName(file).autoCommitDisabled().open();
    // A dead chunk's space is reused at once instead of after 45 s (the default, a guard for disk write caches
    // on power loss): at hundreds of commits a second the file would otherwise grow by gigabytes. A killed
    // process leaves the page cache intact, so this costs nothing against kill -9.
    store.setRetentionTime(0);
    return new DurableH2Backend(store);
  }

  private DurableH2Backend(MVStore store) {
    super(store);
    this.store = store;
    // With the background writer off, nothing frees dead chunks or rewrites the emptiest ones: do it here,
    // between commands (the file otherwise grows by every commit).
    maintenance.scheduleWithFixedDelay(this::compact, 2, 2, TimeUnit.SECONDS);
  }

  /** Its databases' unique indexes also serve queries naming more fields (NarrowingIndex). */
  @Override
  protected MongoDatabase openOrCreateDatabase(String name) {
    // H2Backend's constructor reopens the file's databases before this class's fields are set: its own getMvStore().
    return new NarrowingDatabases.OnFile(name, getMvStore(), getCursorRegistry());
  }

  @Override
  public Document handleCommand(Channel channel, String database, String command, Document query) {
    if (READS.contains(command.toLowerCase(Locale.ROOT))) return super.handleCommand(channel, database, command, query);
    long mine;
    lock.readLock().lock();
    try {
      return super.handleCommand(channel, database, command, query);
    } finally {
      // Also after a failed command: an unordered insert may have stored part of its documents.
      mine = finishedWrites.incrementAndGet();
      lock.readLock().unlock();
      makeDurable(mine);
    }
  }

  private void makeDurable(long write) {
    synchronized (commitMutex) {
      if (durableWrites >= write) return;
      long covered;
      lock.writeLock().lock();
      try {
        covered = finishedWrites.get();
        store.commit();
      } finally {
        lock.writeLock().unlock();
      }
      durableWrites = covered;
    }
  }

  private void compact() {
    try {
      synchronized (commitMutex) {
        lock.writeLock().lock();
        try {
          store.getFileStore().dropUnusedChunks();
          store.compact(80, 16 * 1024 * 1024);
          store.commit();
        } finally {
          lock.writeLock().unlock();
        }
      }
    } catch (RuntimeException e) {
      System.err.println("mongo-wire: compaction failed: " + e);
    }
  }

  @Override
  public void close() {
    maintenance.shutdownNow();
    super.close();
  }
}
