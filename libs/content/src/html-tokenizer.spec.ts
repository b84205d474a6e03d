import { parseDocument } from 'htmlparser2';
import { domShape } from '../../../test/harness/dom-shape';
import { SkippingTokenizer } from './html-tokenizer';

const OPTIONS = { lowerCaseTags: true, lowerCaseAttributeNames: true, decodeEntities: true };

/** Every node of a parse in document order: its depth, type, name, attributes (in order) and data. */
function shape(html: string, skipping: boolean, decodeEntities = true): string[] {
  return domShape(parseDocument(html, { ...OPTIONS, decodeEntities, ...(skipping ? { Tokenizer: SkippingTokenizer } : {}) }));
}

describe('SkippingTokenizer: the same DOM as htmlparser2’s own tokenizer, in fewer steps', () => {
  const pages = [
    '<!DOCTYPE html><html><head><title>A &amp; B</title></head><body><p class="x  y" id=z>One &lt;two&gt; three</p></body></html>',
    '<div data-json="{&quot;a&quot;:1}" title=\'it&apos;s\' hidden>text&nbsp;more&copy text &#169; &#xa9; &unknown; & alone</div>',
    '<a href="/x?a=1&b=2&amp;c=3">link</a><img alt="a &amp b" src=x.png/><br/><input disabled value=>',
    '<P CLASS=Upper ID="Mixed">Case</P><svg viewBox="0 0 1 1"><foreignObject><p>in</p></foreignObject><path d="M0"/></svg>',
    '<script>if (a < b && c > d) { x = "</div>"; }</script><style>a > b { content: "&amp;" }</style><textarea>&lt;t&gt;</textarea>',
    '<!-- a comment <p> --><![CDATA[ data ]]><?php echo 1 ?><!bogus><p>after',
    '<p a b=1 c = "2" d=\'3\' e="">attributes</p><p\tf\ng\r\nh/>names</p><p i/j=k>slash</p><p l=m/>',
    'text at the end with no tag',
    'text ending on an entity &amp',
    'text ending on an ampersand &',
    '<p title="unterminated value',
    "<p title='unterminated single",
    '<p unterminated-name',
    '<p>before</p><script>never closed < a <b',
    '<p>before</p><style>never closed',
    '<p>before</p><!-- never closed - -',
    '<p>before</p><!DOCTYPE never closed',
    '<p>before</p><?never closed',
    '<p>before</p></p never closed',
    '<p data-\u00e9l\u00e8ve="\u00e9t\u00e9">\u00fcnicode \u2603 text</p>\ufeff',
    '<table><tr><td>a<td>b</table><ul><li>1<li>2</ul><p>one<p>two',
    '<div>' + 'word '.repeat(2000) + '&amp;' + '<span a="' + 'v'.repeat(5000) + '">x</span></div>',
  ];

  it('builds the same nodes, attributes and text on markup of every kind', () => {
    for (const html of pages) expect(shape(html, true)).toEqual(shape(html, false));
  });

  it('reads as the stock tokenizer does when entities are not decoded', () => {
    for (const html of pages) expect(shape(html, true, false)).toEqual(shape(html, false, false));
  });

  it('builds the same DOM on random markup', () => {
    const pieces = [
      '<',
      '>',
      '/',
      '=',
      '"',
      "'",
      '&',
      '&amp;',
      '&#65;',
      '&lt',
      ' ',
      '\n',
      '\t',
      'a',
      'div',
      'p',
      'x',
      '!',
      '-',
      '--',
      '<!--',
      '-->',
      '<p ',
      '<a href=',
      '</p>',
      '<script>',
      '</script>',
      '\u00e9',
    ];
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    for (let page = 0; page < 300; page++) {
      let html = '';
      const length = Math.floor(random() * 200);
      for (let i = 0; i < length; i++) html += pieces[Math.floor(random() * pieces.length)];
      expect(shape(html, true)).toEqual(shape(html, false));
    }
  });
});
