import { findFirst, parseHtml, type Element } from '../dom';
import { classWeight, initialScore, isExcluded } from './signals';
import type { GrabFlags } from './types';

const ALL: GrabFlags = { stripUnlikely: true, weightClasses: true, cleanConditionally: true };
const RELAXED: GrabFlags = { stripUnlikely: false, weightClasses: false, cleanConditionally: true };
const el = (html: string, name: string): Element => findFirst(parseHtml(html), name)!;
const never = () => false;

describe('what tags, roles and names say about an element', () => {
  it('weighs class and id: +25 each for content names, -25 each for furniture, nothing when the grab does not weigh them', () => {
    expect(classWeight(el('<div class="article-body" id="main">x</div>', 'div'), ALL)).toBe(50);
    expect(classWeight(el('<div class="sidebar" id="comments">x</div>', 'div'), ALL)).toBe(-50);
    expect(classWeight(el('<div class="post sidebar">x</div>', 'div'), ALL)).toBe(0);
    expect(classWeight(el('<div class="sidebar">x</div>', 'div'), RELAXED)).toBe(0);
  });

  it('starts a candidate from its tag: divs up, lists and headings down', () => {
    expect(initialScore(el('<div>x</div>', 'div'), RELAXED)).toBe(5);
    expect(initialScore(el('<blockquote>x</blockquote>', 'blockquote'), RELAXED)).toBe(3);
    expect(initialScore(el('<ul><li>x</li></ul>', 'ul'), RELAXED)).toBe(-3);
    expect(initialScore(el('<h2>x</h2>', 'h2'), RELAXED)).toBe(-5);
    expect(initialScore(el('<div class="content">x</div>', 'div'), ALL)).toBe(30);
  });

  it('always leaves out what the caller skips, never-content tags and furniture roles', () => {
    expect(isExcluded(el('<nav>x</nav>', 'nav'), RELAXED, never)).toBe(true);
    expect(isExcluded(el('<div role="navigation">x</div>', 'div'), RELAXED, never)).toBe(true);
    expect(isExcluded(el('<p>x</p>', 'p'), RELAXED, (e) => e.name === 'p')).toBe(true);
    expect(isExcluded(el('<div class="sidebar">x</div>', 'div'), RELAXED, never)).toBe(false);
  });

  it('leaves out unlikely names only when stripping, and keeps the tags content lives in', () => {
    expect(isExcluded(el('<div class="sidebar">x</div>', 'div'), ALL, never)).toBe(true);
    expect(isExcluded(el('<div class="sidebar-content">x</div>', 'div'), ALL, never)).toBe(false);
    expect(isExcluded(el('<article class="sidebar">x</article>', 'article'), ALL, never)).toBe(false);
    expect(isExcluded(el('<table><tr><td><div class="menu">x</div></td></tr></table>', 'div'), ALL, never)).toBe(false);
    expect(isExcluded(el('<div class="image-caption">x</div>', 'div'), ALL, never)).toBe(true);
    expect(isExcluded(el('<div class="ab">x</div>', 'div'), ALL, never)).toBe(false);
  });

  it('reads a heading named a header as a heading, not as the site header', () => {
    expect(isExcluded(el('<h2 class="headerTxt">Immediate support</h2>', 'h2'), ALL, never)).toBe(false);
    expect(isExcluded(el('<h3 class="section-header">Our services</h3>', 'h3'), ALL, never)).toBe(false);
    expect(isExcluded(el('<div class="headerTxt">x</div>', 'div'), ALL, never)).toBe(true);
    expect(isExcluded(el('<h3 class="sidebar-header">Recent posts</h3>', 'h3'), ALL, never)).toBe(true);
  });

  it("gives a name read once the same verdict again, a heading's apart, and looks for tables and code each time", () => {
    for (let i = 0; i < 2; i++) {
      expect(isExcluded(el('<div class="menu-box">x</div>', 'div'), ALL, never)).toBe(true);
      expect(isExcluded(el('<h2 class="menu-box">x</h2>', 'h2'), ALL, never)).toBe(true);
      expect(isExcluded(el('<div class="page-header">x</div>', 'div'), ALL, never)).toBe(true);
      expect(isExcluded(el('<h2 class="page-header">x</h2>', 'h2'), ALL, never)).toBe(false);
      expect(isExcluded(el('<code><div class="menu-box">x</div></code>', 'div'), ALL, never)).toBe(false);
    }
  });
});
