import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ResultSink } from './result-sink';

describe('ResultSink', () => {
  it('writes each result id once, as the item GET /results?format=jsonl has', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'gleaner-sink-')), 'out.jsonl');
    const sink = ResultSink.toFile(path);
    const ok = {
      id: 'r1',
      url: 'https://a.example/',
      status: 'completed' as const,
      data: { x: 1 },
      metadata: { method: 'selectors', program_id: 'prg_1', template_id: 'tpl_1' },
      warnings: [{ code: 'content_truncated', message: 'cut', location: null }],
      depth: 0,
      parent_url: null,
      token_usage_input: 5,
      token_usage_output: 2,
    };
    const failed = {
      id: 'r2',
      url: 'https://a.example/b',
      status: 'failed' as const,
      data: null,
      error_category: 'fetch_error',
      error_message: 'HTTP 500',
      metadata: { method: null },
      warnings: [],
      depth: 1,
    };
    expect(sink.write(ok)).toBe(true);
    expect(sink.write(failed)).toBe(true);
    expect(sink.write({ ...ok })).toBe(false);
    sink.close();
    expect(sink.written).toBe(2);
    expect(readFileSync(path, 'utf8')).toBe(
      '{"id":"r1","url":"https://a.example/","status":"completed","data":{"x":1},' +
        '"metadata":{"method":"selectors","program_id":"prg_1","template_id":"tpl_1"},' +
        '"warnings":[{"code":"content_truncated","message":"cut","location":null}]}\n' +
        '{"id":"r2","url":"https://a.example/b","status":"failed","data":null,"error_category":"fetch_error","error_message":"HTTP 500",' +
        '"metadata":{"method":null},"warnings":[]}\n',
    );
  });

  it('refuses a path it cannot create before anything starts', () => {
    expect(() => ResultSink.toFile('/nonexistent-dir/out.jsonl')).toThrow(/cannot write \/nonexistent-dir\/out.jsonl: ENOENT/);
  });
});
