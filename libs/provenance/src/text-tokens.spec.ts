import { hasUnsegmentedScript, isDigits, tokenize, tokenizeInto, wordKey, type Tokens } from './text-tokens';

const keys = (text: string) => tokenize(text).keys;

describe('words (tokenize)', () => {
  it('lower-cases: case never matters', () => {
    expect(keys('The BRIDGE of Peace')).toEqual(['the', 'bridge', 'of', 'peace']);
  });

  it('treats any run of whitespace (no-break and narrow spaces, tabs, newlines) as one separator', () => {
    expect(keys('Salt\u00a0\u00a0Roads\n\t by\u202fme')).toEqual(['salt', 'roads', 'by', 'me']);
  });

  it('applies Unicode NFKC: ligatures, full-width letters and digits, composed and decomposed accents', () => {
    expect(keys('ﬁne ＡＢＣ １２３')).toEqual(['fine', 'abc', '123']);
    expect(wordKey('Cafe\u0301')).toBe(wordKey('Café'));
  });

  it('keeps diacritics: "café" is not "cafe"', () => {
    expect(wordKey('café')).not.toBe(wordKey('cafe'));
  });

  it('drops punctuation, symbols and markdown syntax: they only separate words', () => {
    expect(keys('**Lydia’s** _Charm_ — #1 | $12.50 € \\*')).toEqual(['lydia', 's', 'charm', '1', '12', '50']);
  });

  it('makes every Han, Hiragana and Katakana character a word of its own, letters between them one word', () => {
    expect(keys('東京都のiPhone15')).toEqual(['東', '京', '都', 'の', 'iphone15']);
  });

  it('gives offsets into the original text', () => {
    const t = tokenize('  Ｂｏｏｋ  one');
    expect(t.starts).toEqual([2, 8]);
    expect(t.ends).toEqual([6, 11]);
  });

  it('leaves out the words inside skipped spans (markdown link targets)', () => {
    const text = '[Little, Brown](https://shop.example/lb) ok';
    const out: Tokens = { keys: [], starts: [], ends: [] };
    tokenizeInto(out, text, 0, text.length, [14, 40]);
    expect(out.keys).toEqual(['little', 'brown', 'ok']);
  });

  it('reads digits after NFKC only (full-width digits are digits)', () => {
    expect(isDigits('0123')).toBe(true);
    expect(isDigits(wordKey('１２'))).toBe(true);
    expect(isDigits('12a')).toBe(false);
    expect(isDigits('')).toBe(false);
  });
});

describe('scripts the tokenizer does not segment', () => {
  it('flags Thai, Lao, Khmer and Myanmar letters, not the scripts it knows', () => {
    expect(hasUnsegmentedScript('สวัสดีครับ')).toBe(true);
    expect(hasUnsegmentedScript('ສະບາຍດີ')).toBe(true);
    expect(hasUnsegmentedScript('សួស្តី')).toBe(true);
    expect(hasUnsegmentedScript('မင်္ဂလာပါ')).toBe(true);
    for (const known of ['Grüße', 'Ελλάδα', 'Москва', 'שלום', 'مرحبا', 'नमस्ते', '東京', 'カタカナ', '서울', '12.50 €'])
      expect([known, hasUnsegmentedScript(known)]).toEqual([known, false]);
  });
});
