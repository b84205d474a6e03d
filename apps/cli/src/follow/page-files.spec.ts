import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PageFiles, pageFilePath, pageFileText } from './page-files';

describe('page files (gleaner crawl --as FORMAT --out-dir DIR)', () => {
  it('names a page by host, port and path, a directory page as index, with the format extension', () => {
    expect(pageFilePath('https://docs.example/guide/intro', 'markdown')).toBe('docs.example/guide/intro.md');
    expect(pageFilePath('https://docs.example/', 'markdown')).toBe('docs.example/index.md');
    expect(pageFilePath('https://docs.example/guide/', 'text')).toBe('docs.example/guide/index.txt');
    expect(pageFilePath('http://127.0.0.1:8080/a', 'page_info')).toBe('127.0.0.1_8080/a.json');
    expect(pageFilePath('https://docs.example/a', 'links')).toBe('docs.example/a.tsv');
  });

  it('keeps queries apart by a hash of them', () => {
    const one = pageFilePath('https://shop.example/list?page=1', 'markdown');
    const two = pageFilePath('https://shop.example/list?page=2', 'markdown');
    expect(one).toMatch(/^shop\.example\/list_[0-9a-f]{10}\.md$/);
    expect(one).not.toBe(two);
  });

  it('never leaves the directory, whatever the URL', () => {
    for (const url of ['https://x.example/%2e%2e/%2e%2e/etc/passwd', 'https://x.example/a/..%2f..%2fb', 'https://x.example/%00/x\\y']) {
      const path = pageFilePath(url, 'markdown');
      expect(path.split('/').every((segment) => segment !== '..' && segment !== '.' && segment.length > 0)).toBe(true);
      expect(path.startsWith('x.example/')).toBe(true);
    }
  });

  it('renders links as lines and page_info as JSON; a missing format writes nothing', () => {
    expect(pageFileText('links', [{ url: 'https://a/', text: 'A' }])).toBe('https://a/\tA\n');
    expect(pageFileText('page_info', { title: 't' })).toBe('{\n  "title": "t"\n}\n');
    expect(pageFileText('markdown', '# T')).toBe('# T\n');
    expect(pageFileText('html', null)).toBeNull();
  });

  it('writes one file per page and numbers names that clash', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gleaner-pages-'));
    const files = new PageFiles(dir, 'markdown');
    expect(files.write('https://a.example/x y', { markdown: 'one' })).toBe('a.example/x_y.md');
    expect(files.write('https://a.example/x_y', { markdown: 'two' })).toBe('a.example/x_y-2.md');
    expect(files.write('https://a.example/pdf', { markdown: null })).toBeNull();
    expect(readFileSync(join(dir, 'a.example/x_y.md'), 'utf8')).toBe('one\n');
    expect(readFileSync(join(dir, 'a.example/x_y-2.md'), 'utf8')).toBe('two\n');
  });
});
