import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  firstColumnNames,
  formatClaims,
  mcpToolRows,
  metricClaims,
  missingNames,
  namesAfter,
  parenthesisedList,
  unknownNames,
} from './doc-names';

const ROOT = join(__dirname, '..', '..');
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');
const names = (claims: Array<{ name: string }>) => claims.map((c) => c.name);

describe('the readers of lists of names (test/e2e/docs-names.suite.ts holds them against the service)', () => {
  it('namesAfter: the backticked names up to the closing parenthesis, with their lines', () => {
    const text = 'Intro.\nThe tools (`extract`, `map`,\n`job_status`) and `other`.';
    expect(namesAfter('x.md', text, 'The tools (')).toEqual([
      { name: 'extract', file: 'x.md', line: 2 },
      { name: 'map', file: 'x.md', line: 2 },
      { name: 'job_status', file: 'x.md', line: 3 },
    ]);
  });

  it("firstColumnNames: every backticked name of a table's first column in the section, not the header or prose rows", () => {
    const text = [
      '## Request',
      '',
      '| Field | Default |',
      '|---|---|',
      '| `url` | required |',
      '| `headers`, `cookies` | – (`none`) |',
      '| prose row | `x` |',
      '',
      '## Next',
      '| `other` | no |',
    ].join('\n');
    expect(firstColumnNames('x.md', text, 'Request')).toEqual([
      { name: 'url', file: 'x.md', line: 5 },
      { name: 'headers', file: 'x.md', line: 6 },
      { name: 'cookies', file: 'x.md', line: 6 },
    ]);
    expect(() => firstColumnNames('x.md', text, 'Missing')).toThrow('x.md: no "## Missing" section');
  });

  it('mcpToolRows: the tools of each row and the arguments of its input cell', () => {
    const text = [
      '## The tools',
      '| tool | scope | input | output |',
      '|---|---|---|---|',
      '| `extract` | `extract` | the `ExtractRequestDto` body: `url`, `schema` | `job_id` |',
      '| `monitor_pause`, `monitor_resume` | `crawl` | `monitor_id` | the monitor |',
    ].join('\n');
    expect(mcpToolRows('m.md', text).map((row) => [names(row.tools), names(row.inputs)])).toEqual([
      [['extract'], ['url', 'schema']],
      [['monitor_pause', 'monitor_resume'], ['monitor_id']],
    ]);
  });

  it('parenthesisedList, formatClaims: plain lists and the formats of code blocks (JSON bodies, --formats)', () => {
    expect(names(parenthesisedList('m.md', '| `url`, `formats` (markdown, raw_html), x |', '`formats`'))).toEqual(['markdown', 'raw_html']);
    const text = [
      'Prose with "formats": ["not_read"].',
      '```sh',
      `curl -d '{"url": "u", "formats": ["markdown", "links"]}'`,
      'gleaner scrape URL --formats text,page_info',
      '```',
    ].join('\n');
    expect(formatClaims('s.md', text)).toEqual([
      { name: 'markdown', file: 's.md', line: 3 },
      { name: 'links', file: 's.md', line: 3 },
      { name: 'text', file: 's.md', line: 4 },
      { name: 'page_info', file: 's.md', line: 4 },
    ]);
  });

  it('metricClaims: every gleaner_ name; in docs/operations-deploy.md only names with a unit suffix', () => {
    const text = '`gleaner_jobs` and rate(gleaner_http_requests_total{role="api"}[5m]); secret `gleaner_secret`';
    expect(names(metricClaims('docs/operations.md', text))).toEqual(['gleaner_jobs', 'gleaner_http_requests_total', 'gleaner_secret']);
    expect(names(metricClaims('docs/operations-deploy.md', text))).toEqual(['gleaner_http_requests_total']);
  });

  it('unknownNames and missingNames say where a list goes wrong', () => {
    const claims = [
      { name: 'a', file: 'x.md', line: 1 },
      { name: 'z', file: 'x.md', line: 2 },
    ];
    expect(unknownNames(claims, ['a', 'b'])).toEqual(['x.md:2 z']);
    expect(missingNames(claims, ['c', 'a', 'b'])).toEqual(['b', 'c']);
  });

  it('finds the lists in the documents (the reading is not vacuous)', () => {
    expect(namesAfter('README.md', read('README.md'), "Gleaner's tools (").length).toBeGreaterThanOrEqual(15);
    const rows = mcpToolRows('docs/mcp.md', read('docs/mcp.md'));
    expect(rows.flatMap((row) => names(row.tools)).length).toBeGreaterThanOrEqual(15);
    expect(rows.flatMap((row) => names(row.inputs)).length).toBeGreaterThanOrEqual(40);
    expect(names(firstColumnNames('docs/scrape.md', read('docs/scrape.md'), 'Formats'))).toContain('page_info');
    expect(names(firstColumnNames('docs/scrape.md', read('docs/scrape.md'), 'Request'))).toContain('only_main_content');
    expect(names(firstColumnNames('docs/crawl.md', read('docs/crawl.md'), 'Options'))).toContain('max_pages');
    expect(names(metricClaims('docs/operations.md', read('docs/operations.md'))).length).toBeGreaterThanOrEqual(30);
  });
});
