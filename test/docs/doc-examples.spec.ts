import { expectationOf, findExamples, mismatches, programsOf, shownFields, splitCommands } from './doc-examples';
import { isSetupCommand, nonLoopbackAddresses, rewriteExample } from './doc-rewrite';

describe('findExamples', () => {
  it('finds shell blocks and curl blocks, reads skip markers, and leaves other blocks alone', () => {
    const md = [
      '# Title',
      '```sh',
      'curl localhost:8080/health',
      '```',
      '',
      '<!-- example: skip needs Docker -->',
      '',
      '```bash',
      'docker ps',
      '```',
      '```json',
      '{"a": 1}',
      '```',
      '```',
      'gleaner jobs list',
      '```',
      '````md',
      '```sh',
      'not an example: inside another fence',
      '```',
      '````',
      '  <!-- example: later -->',
      '  ```sh',
      '  echo hi',
      '  ```',
    ].join('\n');
    const examples = findExamples('x.md', md);
    expect(examples.map((e) => [e.line, e.lang, e.skip, e.badMarker])).toEqual([
      [2, 'sh', undefined, undefined],
      [8, 'bash', 'needs Docker', undefined],
      [14, '', undefined, undefined],
      [23, 'sh', undefined, 'later'],
    ]);
    expect(examples[0].code).toBe('curl localhost:8080/health');
  });
});

describe('splitCommands', () => {
  it('joins continuations and quoted newlines, and splits off trailing comments', () => {
    const code = [
      '# a note',
      'KEY=glk_...',
      "curl -X POST localhost:8080/x -d '{",
      '  "a": "# not a comment"',
      '}\'   # 202 {"job_id"}',
      'gleaner crawl URL \\',
      '  --max-pages 2 -o out.jsonl',
      'echo "a # b" # c',
    ].join('\n');
    expect(splitCommands(code)).toEqual([
      { line: 2, text: 'KEY=glk_...', comment: '' },
      { line: 3, text: `curl -X POST localhost:8080/x -d '{\n  "a": "# not a comment"\n}'`, comment: '202 {"job_id"}' },
      { line: 6, text: 'gleaner crawl URL    --max-pages 2 -o out.jsonl', comment: '' },
      { line: 8, text: 'echo "a # b"', comment: 'c' },
    ]);
  });

  it('refuses an unterminated quote', () => {
    expect(() => splitCommands("curl -d '{")).toThrow(/unterminated/);
  });
});

describe('programsOf', () => {
  it('names curl and gleaner at command positions, not inside quotes or arguments', () => {
    expect(programsOf('JOB=$(curl -X POST url | jq -r .job_id)')).toEqual(['curl']);
    expect(programsOf("grep '/a/' urls.txt | gleaner batch - && npx gleaner jobs list")).toEqual(['gleaner', 'gleaner']);
    expect(programsOf("echo 'curl x' gleaner")).toEqual([]);
    expect(programsOf('export A=1 B=2')).toEqual([]);
  });
});

describe('expectationOf and mismatches', () => {
  it('reads a status, an exit code and the shown fields', () => {
    expect(expectationOf('202 {"job_id": "...", "status_url": ...}')).toEqual({
      status: 202,
      fields: [{ path: 'job_id' }, { path: 'status_url' }],
    });
    expect(expectationOf('exit 2: bad option')).toEqual({ exit: 2, fields: [] });
    expect(expectationOf('SSE: status, result, complete')).toEqual({ fields: [] });
    expect(shownFields('{"job_id", "url", "data": {"markdown": "# Quotes..."}, "n": 3, "ok": true, ...}')).toEqual([
      { path: 'job_id' },
      { path: 'url' },
      { path: 'data' },
      { path: 'data.markdown', value: { prefix: '# Quotes' } },
      { path: 'n', value: { exact: 3 } },
      { path: 'ok', value: { exact: true } },
    ]);
  });

  it('reports missing fields and values that differ', () => {
    const fields = shownFields('{"job_id", "data": {"markdown": "# Quotes..."}, "status": "completed"}');
    expect(mismatches({ job_id: 'j', data: { markdown: '# Quotes to Scrape' }, status: 'completed' }, fields)).toEqual([]);
    expect(mismatches({ data: { markdown: 'Other' }, status: 'failed' }, fields)).toEqual([
      'job_id is missing',
      'data.markdown is "Other", not starting with "# Quotes"',
      'status is "failed", not "completed"',
    ]);
  });
});

describe('rewriting and the loopback guard', () => {
  const targets = { serviceUrl: 'http://127.0.0.1:4001', key: 'glk_K', quotesSiteUrl: 'http://127.0.0.1:4002' };

  it('rewrites the service, the key, the example site and npx gleaner', () => {
    const code =
      'KEY=glk_...\ncurl localhost:8080/a http://localhost:8080/b -d \'{"url": "https://quotes.toscrape.com/page/2/"}\'\nnpx gleaner --help';
    expect(rewriteExample(code, targets)).toBe(
      'KEY=glk_K\ncurl 127.0.0.1:4001/a http://127.0.0.1:4001/b -d \'{"url": "http://127.0.0.1:4002/page/2/"}\'\ngleaner --help',
    );
    // The login fixture's name stays (the service resolves it to loopback), with the fixture's port; only when it runs.
    const profile = '"hosts": ["members.example"], "url": "https://members.example/login", "x": "https://members.example.org/"';
    expect(rewriteExample(profile, { ...targets, loginSiteUrl: 'http://members.example:4003' })).toBe(
      '"hosts": ["members.example"], "url": "http://members.example:4003/login", "x": "https://members.example.org/"',
    );
    expect(rewriteExample(profile, targets)).toBe(profile);
    expect(isSetupCommand('npm install &&  npm run build')).toBe(true);
    expect(isSetupCommand('npm start')).toBe(false);
  });

  it('finds every address that is not loopback, with or without a scheme', () => {
    expect(nonLoopbackAddresses('curl http://127.0.0.1:1/x http://localhost/y http://[::1]:3/')).toEqual([]);
    expect(nonLoopbackAddresses('gleaner map https://shop.example/ -o urls.txt; curl books.toscrape.com/x mongodb://mongo:27017')).toEqual([
      'https://shop.example',
      'mongodb://mongo',
      'books.toscrape.com',
    ]);
    expect(nonLoopbackAddresses('gleaner crawl -o quotes.jsonl --schema quotes.yaml dist/apps/cli/src/main.js')).toEqual([]);
    // A name the service resolves to loopback passes only when the harness says so.
    const login = 'curl -d \'{"url": "http://members.example:4003/login"}\' http://members.example.org/';
    expect(nonLoopbackAddresses(login)).toEqual(['http://members.example', 'http://members.example.org']);
    expect(nonLoopbackAddresses(login, ['members.example'])).toEqual(['http://members.example.org']);
  });
});
