import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.Index;
import de.bwaldvogel.mongo.backend.IndexKey;
import de.bwaldvogel.mongo.backend.NarrowingIndex;
import de.bwaldvogel.mongo.backend.h2.H2Database;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import de.bwaldvogel.mongo.backend.memory.MemoryDatabase;
import java.util.List;
import org.h2.mvstore.MVStore;

/** The two backends' databases, their unique indexes narrowing (NarrowingIndex): the only change to them. */
final class NarrowingDatabases {
  private NarrowingDatabases() {}

  static final class OnFile extends H2Database {
    OnFile(String name, MVStore store, CursorRegistry cursors) {
      super(name, store, cursors);
    }

    @Override
    protected Index<Object> openOrCreateUniqueIndex(String collection, String name, List<IndexKey> keys, boolean sparse) {
      return NarrowingIndex.of(super.openOrCreateUniqueIndex(collection, name, keys, sparse), sparse);
    }
  }

  static final class InMemory extends MemoryDatabase {
    InMemory(String name, CursorRegistry cursors) {
      super(name, cursors);
    }

    @Override
    protected Index<Integer> openOrCreateUniqueIndex(String collection, String name, List<IndexKey> keys, boolean sparse) {
      return NarrowingIndex.of(super.openOrCreateUniqueIndex(collection, name, keys, sparse), sparse);
    }
  }

  /** MemoryBackend opening InMemory databases. */
  static final class Memory extends MemoryBackend {
    @Override
    public MemoryDatabase openOrCreateDatabase(String name) {
      return new InMemory(name, getCursorRegistry());
    }
  }
}
