import { DomHandler, Element, type ChildNode } from 'domhandler';

/**
 * The tree builder parseHtml gives htmlparser2: domhandler's DomHandler, but for the list each new element's
 * children go in. domhandler makes it with an array literal (`children = []` in Element's constructor): one
 * allocation site for every element of every page. V8 watches such a site, and when most of the arrays it made
 * are still alive at a young-generation collection (one that falls in the middle of a large page's parse, where
 * they all are), it allocates the site's arrays in the old generation from then on, and never reconsiders (an
 * old array carries no allocation memento to count). Every page's child lists were then old from birth: each
 * node pushed into one is an old-to-young reference, and once the page is done, its dead lists keep its nodes
 * alive through the next scavenges until a full collection, so that whole DOMs were copied and promoted. On the
 * WCXB pages with the benchmark's corpus in memory: 13 MB of young objects survived each scavenge (30 MB when
 * only parsing and walking), against about 1 MB with this builder. An array copied by `slice` has no allocation
 * site; the copy of an empty array of objects is one, ready for its first child. docs/scrape.md tells the story.
 */
export class DomBuilder extends DomHandler {
  override onopentag(name: string, attribs: { [key: string]: string }): void {
    const element = new Element(name, attribs, NO_CHILDREN.slice());
    this.addNode(element);
    this.tagStack.push(element);
  }
}

/** An empty list of nodes, never filled: each element's list is a copy. Made with one node and emptied, so that
 * its copies hold objects from the start (no elements-kind change at their first push). */
const NO_CHILDREN: ChildNode[] = [new Element('template', {})];
NO_CHILDREN.length = 0;
