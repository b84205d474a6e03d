import { isElement, type Element } from '../dom';
import { isSiteChrome } from '../site-chrome';
import { namesAKind, signatureOf } from './repeated-blocks';
import type { TextCount } from './text-census';

/**
 * The posts of a thread, found from one of them. A forum thread, a Q&A page or a discussion renders every post
 * with the same markup (the post's body block has the same tag and class names in the opening post and in each
 * reply), but the replies are often not siblings of the opening post: they sit in a `#replies`/`#comments`
 * section of their own, which readability's names take for furniture. From the block readability picked (and a
 * few of its ancestors), the blocks of the same kind elsewhere in the page are the other posts; the thread is
 * their lowest common ancestor.
 */
export interface ThreadPosts {
  /** The lowest common ancestor of the posts. */
  root: Element;
  /** The posts, outermost matches in document order (the block they were found from included). */
  posts: Element[];
  /** The posts and every element between them and `root`: never furniture. */
  keep: Set<Element>;
}

/** How far above the picked block a post's markup is looked for. */
const MAX_LEVELS = 6;
/** Fewest posts (the one found from included) that make a thread. */
const MIN_POSTS = 2;
/** Class names two posts share, as a share of either's (a reply adds a state class or two: `is-reply`, `post--op`). */
const MIN_CLASS_OVERLAP = 0.6;
/** Names of a post or of what holds a thread's posts: on the posts' side of their common ancestor, a thread names itself. */
const THREAD_NAME = /post|comment|repl(?:y|ies)|answer|message|topic|thread|discussion|entry/i;
const FURNITURE_TAGS = new Set(['aside', 'nav', 'footer', 'dialog']);

/**
 * The thread `block` is a post of, if any: walking up from `block`, the first ancestor (or `block` itself) whose
 * kind (tag and class names, namesAKind) recurs at least once more in `body` outside site chrome and asides,
 * holding text; the posts must together hold at least `minText`.
 */
export function threadPosts(
  block: Element,
  body: Element,
  counts: ReadonlyMap<Element, TextCount>,
  minText: number,
): ThreadPosts | undefined {
  let node: Element = block;
  let index: PostIndex | undefined;
  const indexed = () => (index ??= new PostIndex(body, counts));
  for (let level = 0; level < MAX_LEVELS && node !== body; level++) {
    const found = postsLike(node, indexed, counts);
    if (found.length >= MIN_POSTS) {
      const text = found.reduce((sum, el) => sum + (counts.get(el)?.text ?? 0), 0);
      if (text >= minText) {
        const t = thread(found, body);
        if ([...t.keep].some(namesThread)) return t;
      }
    }
    if (!node.parent || !isElement(node.parent)) break;
    node = node.parent;
  }
  return undefined;
}

/**
 * The elements of `body` a post may be, in document order: those holding counted text outside site chrome and
 * asides (whose subtrees are not looked into), each with the index its subtree ends at, and each one's class
 * names read once. Built once for the few levels a thread is looked for at.
 */
class PostIndex {
  readonly elements: Element[] = [];
  /** For the element at i, the index just past its subtree. */
  readonly ends: number[] = [];
  /**
   * For the element at i, its tag and class attribute, read once: each level's scan compares these, not the
   * elements themselves (scattered over the heap) again.
   */
  readonly names: string[] = [];
  readonly classAttrs: (string | undefined)[] = [];
  /**
   * The class names of each tag and class attribute met, by tag then by class attribute (a thread's markup repeats:
   * read once per kind, not per element; the attribute's own string is the key, no string built per look-up).
   */
  private readonly classes = new Map<string, Map<string, Set<string>>>();

  constructor(body: Element, counts: ReadonlyMap<Element, TextCount>) {
    // Iterative pre-order (garbage markup nests thousands deep); an element's end is set once its subtree is listed.
    const stack: (Element | number)[] = [];
    for (let i = body.children.length - 1; i >= 0; i--) stack.push(body.children[i] as Element);
    while (stack.length > 0) {
      const top = stack.pop()!;
      if (typeof top === 'number') {
        this.ends[top] = this.elements.length;
        continue;
      }
      if (!isElement(top) || !counts.has(top) || isFurniture(top)) continue;
      const at = this.elements.length;
      this.elements.push(top);
      this.ends.push(at + 1);
      this.names.push(top.name);
      this.classAttrs.push(top.attribs.class);
      stack.push(at);
      for (let i = top.children.length - 1; i >= 0; i--) stack.push(top.children[i] as Element);
    }
  }

  /** The class names of `el`, whose tag is `name` and class attribute `cls`. */
  classesOf(el: Element, name: string, cls: string): Set<string> {
    // signatureOf reads only the tag and class names.
    let byClass = this.classes.get(name);
    if (!byClass) this.classes.set(name, (byClass = new Map()));
    let classes = byClass.get(cls);
    if (!classes) byClass.set(cls, (classes = classSet(signatureOf(el))));
    return classes;
  }
}

function postsLike(model: Element, indexed: () => PostIndex, counts: ReadonlyMap<Element, TextCount>): Element[] {
  const signature = signatureOf(model);
  if (!namesAKind({ signature })) return [];
  const classes = classSet(signature);
  if (classes.size === 0) return [];
  const found: Element[] = [];
  const index = indexed();
  const { elements, ends, names, classAttrs } = index;
  const name = model.name;
  for (let i = 0; i < elements.length;) {
    const cls = classAttrs[i];
    // An element without a class name is like no post (similar: its set is empty), its names not read.
    if (elements[i] === model || (names[i] === name && cls && similar(classes, index.classesOf(elements[i], name, cls)))) {
      const el = elements[i];
      if ((counts.get(el)?.text ?? 0) > 0) found.push(el);
      // A quoted post inside a post is part of it.
      i = ends[i];
    } else i++;
  }
  return found.includes(model) ? found : [];
}

function classSet(signature: string): Set<string> {
  return new Set(signature.split('.').slice(1).filter(Boolean));
}

function similar(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (b.size === 0) return false;
  let shared = 0;
  for (const c of a) if (b.has(c)) shared++;
  return shared >= MIN_CLASS_OVERLAP * a.size && shared >= MIN_CLASS_OVERLAP * b.size;
}

function isFurniture(el: Element): boolean {
  return FURNITURE_TAGS.has(el.name) || isSiteChrome(el);
}

function thread(posts: Element[], body: Element): ThreadPosts {
  const chains = posts.map((post) => {
    const chain: Element[] = [];
    for (let x: Element | null = post; x && isElement(x); x = x.parent as Element | null) {
      chain.unshift(x);
      if (x === body) break;
    }
    return chain;
  });
  let depth = 0;
  while (chains.every((chain) => depth < chain.length && chain[depth] === chains[0][depth])) depth++;
  const root = chains[0][Math.max(0, depth - 1)];
  const keep = new Set<Element>();
  for (const chain of chains) for (const el of chain.slice(depth)) keep.add(el);
  return { root, posts, keep };
}

function namesThread(el: Element): boolean {
  return el.name === 'article' || THREAD_NAME.test(`${el.attribs.class ?? ''} ${el.attribs.id ?? ''} ${el.attribs.itemprop ?? ''}`);
}

/** No post holds more than this share of the thread's text when the thread is a forum's (every post a peer). */
const MAX_POST_SHARE = 0.5;

/**
 * A forum thread, as opposed to an article with comments under it: the posts are peers, every one at the same
 * place under the thread (the same path of tags from the thread's root down to it: a list of posts, not a body
 * of prose in one section and comments in another), and none of them holds most of the thread's text (an
 * article's body does, over its comments).
 */
export function isPeerThread(thread: ThreadPosts, counts: ReadonlyMap<Element, TextCount>): boolean {
  const texts = thread.posts.map((post) => counts.get(post)?.text ?? 0);
  const total = texts.reduce((a, b) => a + b, 0);
  if (total === 0 || Math.max(...texts) > MAX_POST_SHARE * total) return false;
  const paths = thread.posts.map((post) => pathFrom(thread.root, post));
  const top = paths.reduce((a, b) => (b.length < a.length ? b : a));
  // Replies nested in replies sit deeper, under the same path; the top level holds several posts.
  return paths.every((path) => path === top || path.startsWith(`${top}<`)) && paths.filter((path) => path === top).length >= MIN_POSTS;
}

function pathFrom(root: Element, el: Element): string {
  const names: string[] = [];
  for (let x: Element | null = el; x && x !== root && isElement(x); x = x.parent as Element | null) names.push(x.name);
  return names.join('<');
}
