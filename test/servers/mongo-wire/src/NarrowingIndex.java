package de.bwaldvogel.mongo.backend;

import de.bwaldvogel.mongo.MongoCollection;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.KeyConstraintError;

/**
 * A unique index (the `_id` index and Gleaner's unique indexes) that also serves queries naming more fields
 * than its own: `{_id: x, status: "pending"}` is looked up by `_id` and the rest of the filter is then
 * applied to the documents found, as MongoDB does.
 *
 * mongo-java-server uses an index only when the query's fields are exactly the index's, and ignores
 * secondary indexes altogether, so every such query scanned its whole collection: a crawl's per-page
 * updates (`{_id, status}`, `{_id, done: false}`) grew with everything the store held, and a store that had
 * kept a few crawls of ten thousand pages ran the next crawl at a page a second (`npm run test:swarm`).
 * Narrowing is safe because mongo-java-server matches the whole query against every document an index
 * hands back (the same filter it applies to a collection scan); only the lookup changes. In the package of
 * `Index` because its delegate's package-private and protected parts are what it forwards to.
 */
public final class NarrowingIndex<P> extends Index<P> {
  private final Index<P> delegate;

  private NarrowingIndex(Index<P> delegate, boolean sparse) {
    super(delegate.getName(), delegate.getKeys(), sparse);
    this.delegate = delegate;
  }

  /** The index a database opens, narrowing (both backends' databases call this on every unique index they open). */
  public static <P> Index<P> of(Index<P> index, boolean sparse) {
    return new NarrowingIndex<>(index, sparse);
  }

  /** The query's conditions on this index's fields only, or null when it lacks one of them. */
  private Document ownPart(Document query) {
    if (!query.keySet().containsAll(keySet())) return null;
    Document own = new Document();
    for (String key : keys()) own.put(key, query.get(key));
    return own;
  }

  @Override
  public boolean canHandle(Document query) {
    if (query.keySet().equals(keySet())) return delegate.canHandle(query);
    Document own = ownPart(query);
    return own != null && delegate.canHandle(own);
  }

  @Override
  public Iterable<P> getPositions(Document query) {
    if (query.keySet().equals(keySet())) return delegate.getPositions(query);
    return delegate.getPositions(ownPart(query));
  }

  @Override public P getPosition(Document document) { return delegate.getPosition(document); }
  @Override public void checkAdd(Document document, MongoCollection<P> collection) { delegate.checkAdd(document, collection); }
  @Override public void add(Document document, P position, MongoCollection<P> collection) { delegate.add(document, position, collection); }
  @Override public P remove(Document document) { return delegate.remove(document); }
  @Override public long getCount() { return delegate.getCount(); }
  @Override public long getDataSize() { return delegate.getDataSize(); }
  @Override public void checkUpdate(Document oldDocument, Document newDocument, MongoCollection<P> collection) {
    delegate.checkUpdate(oldDocument, newDocument, collection);
  }
  @Override public void updateInPlace(Document oldDocument, Document newDocument, P position, MongoCollection<P> collection)
      throws KeyConstraintError {
    delegate.updateInPlace(oldDocument, newDocument, position, collection);
  }
  @Override public void drop() { delegate.drop(); }
  @Override public boolean isUnique() { return delegate.isUnique(); }
  @Override public Document toIndexDescription() { return delegate.toIndexDescription(); }
}
