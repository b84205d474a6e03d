import { findFirst, parseHtml, type Element } from '../dom';
import { textCensus } from './text-census';
import { isPeerThread, threadPosts } from './thread-posts';

const page = (html: string) => {
  const doc = parseHtml(html);
  const body = findFirst(doc, 'body')!;
  return { body, counts: textCensus(body, () => false) };
};
const byId = (root: Element, id: string): Element => {
  const stack: Element[] = [root];
  while (stack.length > 0) {
    const el = stack.pop()!;
    if (el.attribs?.id === id) return el;
    for (const c of el.children) if ('attribs' in c) stack.push(c);
  }
  throw new Error(id);
};
const post = (id: string, text: string, extra = '') => `<div class="content markdown${extra}" id="${id}"><p>${text}</p></div>`;

describe('thread posts: the other posts of a thread, found from one of them', () => {
  it('finds the replies of a replies section from the opening post, marked up alike', () => {
    const { body, counts } = page(
      '<body><nav><div class="content markdown">Menu</div></nav><div id="thread">' +
        `<article class="topic">${post('op', 'The question asked at length')}</article>` +
        `<section id="replies"><article class="reply">${post('r1', 'A first answer')}</article>` +
        `<article class="reply">${post('r2', 'A second answer', ' edited')}</article></section></div></body>`,
    );
    const thread = threadPosts(byId(body, 'op'), body, counts, 10)!;
    expect(thread.root.attribs.id).toBe('thread');
    expect(thread.posts.map((p) => p.attribs.id)).toEqual(['op', 'r1', 'r2']);
    expect(thread.keep.has(byId(body, 'replies'))).toBe(true);
  });

  it('walks up from the picked block to the post whose markup recurs', () => {
    const { body, counts } = page(
      '<body><form id="feed">' +
        '<article class="cPost ipsComment"><aside>Poster</aside><div id="b1"><p>Opening post text</p></div></article>' +
        '<article class="cPost ipsComment"><aside>Poster</aside><div id="b2"><p>Reply text</p></div></article>' +
        '</form></body>',
    );
    const thread = threadPosts(byId(body, 'b1'), body, counts, 10)!;
    expect(thread.root.attribs.id).toBe('feed');
    expect(thread.posts).toHaveLength(2);
  });

  it('is no thread when the block is alone of its kind, the others add too little, or nothing names a post', () => {
    const lone = page(`<body><div id="t"><article class="topic">${post('op', 'Only post')}</article></div></body>`);
    expect(threadPosts(byId(lone.body, 'op'), lone.body, lone.counts, 1)).toBeUndefined();
    const short = page(`<body><article>${post('a', 'Long opening post text here')}</article><article>${post('b', 'ok')}</article></body>`);
    expect(threadPosts(byId(short.body, 'a'), short.body, short.counts, 1000)).toBeUndefined();
    const layout = page(
      `<body><div class="col">${post('a', 'Text of one block')}</div><div class="col">${post('b', 'Text of another')}</div></body>`,
    );
    expect(threadPosts(byId(layout.body, 'a'), layout.body, layout.counts, 1)).toBeUndefined();
  });

  it('does not take a block of the same kind inside navigation or an aside for a post', () => {
    const { body, counts } = page(
      `<body><article class="post">${post('op', 'Opening post text')}</article><aside><article class="post">${post('x', 'Teaser')}</article></aside></body>`,
    );
    expect(threadPosts(byId(body, 'op'), body, counts, 1)).toBeUndefined();
  });

  it('tells a forum thread (posts as peers, nested replies under them) from an article with comments', () => {
    const reply = (id: string, text: string, nested = '') =>
      `<li class="comment">${post(id, text)}${nested ? `<ol>${nested}</ol>` : ''}</li>`;
    const forum = page(
      '<body><ol class="comments">' +
        reply('p1', 'A first post, about as long as the others') +
        reply('p2', 'A second post, about as long as the others', reply('p3', 'A reply nested under the second post')) +
        '</ol></body>',
    );
    expect(isPeerThread(threadPosts(byId(forum.body, 'p1'), forum.body, forum.counts, 1)!, forum.counts)).toBe(true);
    const long = 'The article body, one long text of prose. '.repeat(10);
    // The article's body alone at its place, the comments in a section of their own.
    const article = page(
      `<body><div id="page"><article class="post">${post('body', long)}</article><section class="comments"><ol>` +
        `${reply('c1', 'A comment on it')}${reply('c2', 'Another comment')}</ol></section></div></body>`,
    );
    const commented = threadPosts(byId(article.body, 'body'), article.body, article.counts, 1)!;
    expect(commented.posts).toHaveLength(3);
    expect(isPeerThread(commented, article.counts)).toBe(false);
    // Even when the body is no longer than its comments, it stands alone at its place.
    const short = page(
      `<body><div id="page"><article class="post">${post('body', 'A short article body text')}</article><section class="comments"><ol>` +
        `${reply('c1', 'A comment on it, just as long')}${reply('c2', 'Another comment, just as long')}</ol></section></div></body>`,
    );
    expect(isPeerThread(threadPosts(byId(short.body, 'body'), short.body, short.counts, 1)!, short.counts)).toBe(false);
  });
});
