import { CDATA, Comment, Document, Element, ProcessingInstruction, Text, type AnyNode } from 'domhandler';

/**
 * The tree htmlparser2's parser events build, as domhandler's DomHandler builds it with its default options (no
 * indices, no callbacks): the same node classes, fields, links and merged text, with less work per node. DomHandler
 * gives every element an empty `children` array and pushes each child into it, which grows the array's store to
 * seventeen slots at the first child (most elements have one to three); here the children of the open elements
 * wait in one shared list, and each element is given its own, of its exact length, when it is closed (an empty
 * one, as DomHandler's, when it has none). Nothing reads an element's children while the page is parsed. One
 * builder serves one parse: `finish` closes what is still open and gives the document.
 *
 * Every element's list is a copy (`slice`) of the shared one, never an array literal. DomHandler made them all with
 * one literal (`children = []` in Element's constructor), and V8 watches a literal's allocation site: when most of
 * the arrays it made are still alive at a young-generation collection (one that falls in the middle of a large
 * page's parse, where they all are), it allocates the site's arrays in the old generation from then on and never
 * reconsiders (an old array carries no allocation memento to count; --trace-pretenuring showed the decision on
 * the WCXB pages, 635 found alive of 635 made). Every page's child lists were then born old: each node pushed into
 * one was an old-to-young reference, and once the page was done its dead lists kept its young nodes alive through
 * the next scavenges, until a full collection, so that whole DOMs were copied and promoted (13 MB of young objects
 * survived each scavenge in the benchmark's process, and a scavenge took 32 ms; about 1 MB and 3 ms with copies).
 * A copy made by `slice` has no allocation site.
 */

/** What an element holds until it is closed (frozen: a push into it would throw, not be shared). */
const NOT_YET: AnyNode[] = Object.freeze([]) as unknown as AnyNode[];

type Parent = Document | Element;

export class DomBuilder {
  readonly root: Document = new Document(NOT_YET);
  /** The open parents, the document first, and where each one's children start in `waiting`. */
  private readonly open: Parent[] = [this.root];
  private readonly starts: number[] = [0];
  private parent: Parent | undefined = this.root;
  private start = 0;
  /** The children of the open parents, in document order: the first `count` entries (the rest is stale). */
  private readonly waiting: AnyNode[] = [];
  private count = 0;
  /** The text or comment the next text or comment is added to (DomHandler's `lastNode`). */
  private last: Text | Comment | null = null;

  onopentag(name: string, attribs: Record<string, string>): void {
    const element = new Element(name, attribs, NOT_YET);
    this.add(element);
    this.open.push(element);
    this.starts.push((this.start = this.count));
    this.parent = element;
  }

  onclosetag(): void {
    this.last = null;
    this.close();
  }

  ontext(data: string): void {
    const last = this.last;
    if (last !== null && isType(last, 'text')) last.data += data;
    else {
      const node = new Text(data);
      this.add(node);
      this.last = node;
    }
  }

  oncomment(data: string): void {
    const last = this.last;
    if (last !== null && isType(last, 'comment')) {
      last.data += data;
      return;
    }
    const node = new Comment(data);
    this.add(node);
    this.last = node;
  }

  oncommentend(): void {
    this.last = null;
  }

  oncdatastart(): void {
    const text = new Text('');
    const node = new CDATA([text]);
    this.add(node);
    text.parent = node;
    this.last = text;
  }

  oncdataend(): void {
    this.last = null;
  }

  onprocessinginstruction(name: string, data: string): void {
    this.add(new ProcessingInstruction(name, data));
  }

  onerror(error: Error): void {
    throw error;
  }

  /** Closes every parent still open (the parser closes all it opened; a tag cut off by the page's end is not). */
  finish(): Document {
    while (this.open.length > 0) this.close();
    return this.root;
  }

  /** DomHandler's addNode: a child of the innermost open parent, after its last child. */
  private add(node: AnyNode): void {
    const waiting = this.waiting;
    const count = this.count;
    if (count > this.start) {
      const previous = waiting[count - 1];
      node.prev = previous;
      previous.next = node;
    }
    if (count < waiting.length) waiting[count] = node;
    else waiting.push(node);
    this.count = count + 1;
    node.parent = this.parent as Parent;
    this.last = null;
  }

  /** Gives the innermost open parent its children and closes it (nothing when none is open, as DomHandler). */
  private close(): void {
    const parent = this.open.pop();
    if (parent === undefined) return;
    const start = this.starts.pop() as number;
    // A copy, also when empty: no allocation site (see above).
    parent.children = this.waiting.slice(start, this.count);
    this.count = start;
    const depth = this.open.length;
    this.parent = depth > 0 ? this.open[depth - 1] : undefined;
    this.start = depth > 0 ? this.starts[depth - 1] : 0;
  }
}

/** Whether `node` is of `type` (DomHandler's test of its last node, against domelementtype's string values). */
function isType(node: AnyNode, type: string): boolean {
  const own: string = node.type;
  return own === type;
}
