import { walk, type AnyNode, type Element } from '../dom';

/**
 * The rules that leave an element out of the main content, each asked once per element of the page instead of once
 * per walk that meets it (every later part walks the page and asks of each element it meets whether it is left
 * out: the answer is one look-up). Rules are numbered in the order given; an element's verdict is the first rule
 * that leaves it out. `skippedBy(n)` answers for the first `n` rules only (the rules a part that runs before the
 * later rules exist may use), `skipped` for all of them. Rules whose elements are known as a set (a part's output)
 * are added later with `add`, numbered after the ones asked. An element the walk never met (created after it) is
 * left out by none.
 */
export class SkipVerdicts {
  /** Each element that some rule leaves out, with the number of the first such rule. */
  private readonly rule = new Map<Element, number>();
  private rules: number;

  constructor(root: AnyNode, rules: readonly ((el: Element) => boolean)[]) {
    this.rules = rules.length;
    const rule = this.rule;
    walk(root, (el) => {
      for (let i = 0; i < rules.length; i++) {
        if (rules[i](el)) {
          rule.set(el, i);
          break;
        }
      }
    });
  }

  /** A rule whose elements are known: numbered after the ones before it; elements an earlier rule leaves out keep theirs. */
  add(elements: Iterable<Element>): void {
    const n = this.rules++;
    for (const el of elements) if (!this.rule.has(el)) this.rule.set(el, n);
  }

  /** Whether one of the first `n` rules leaves elements out (the rules added later not asked). */
  skippedBy(n: number): (el: Element) => boolean {
    const rule = this.rule;
    return (el) => {
      const first = rule.get(el);
      return first !== undefined && first < n;
    };
  }

  /** Whether any rule leaves `el` out. */
  readonly skipped = (el: Element): boolean => this.rule.has(el);
}
