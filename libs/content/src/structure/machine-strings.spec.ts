import { parseHtml } from '../dom';
import { machineStrings } from './machine-strings';

const id = (n: number) => `${String(n).padStart(8, 'a')}-1bc7-4f5f-a4f7-68184bc11dc0`;

function out(html: string): string[] {
  return [...machineStrings(parseHtml(`<body>${html}</body>`))].map((el) => el.attribs.id ?? el.name).sort();
}

describe('machine strings: identifiers drawn as text', () => {
  it('leaves out a label scrambled between random ids, whole', () => {
    const label = ['S', 'p', 'o', 'n'].map((c, i) => `<span>${c}</span><span>${id(i)}</span>`).join('');
    expect(out(`<div id="label">${label}</div><p>Item description</p>`)).toEqual(['label']);
  });

  it('leaves out an id alone, not the text around it, nor ids in code or inside a sentence', () => {
    expect(out(`<p id="p">Order number <span id="s">${id(1)}</span> shipped today.</p>`)).toEqual(['s']);
    expect(out(`<pre><code><span>${id(1)}</span><span>${id(2)}</span></code></pre>`)).toEqual([]);
    expect(out(`<p>Your key is ${id(1)}, keep it safe.</p>`)).toEqual([]);
  });
});
