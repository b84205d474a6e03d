import { IsOptional, IsString } from 'class-validator';
import { dtoJsonSchema, HTTP_URL_PATTERN } from '@app/http';
import { ExtractRequestDto } from '@app/extraction';
import { listTools } from './mcp-server';
import { progressSink } from './progress';
import { toCallToolResult } from './tool-outcome';
import { toolInputSchema } from './tool-schema';
import { FollowArgs } from './tool-args.dto';

describe('MCP tools', () => {
  it('give each tool one object schema: the REST body DTO merged with the tool’s own arguments', () => {
    const tools = listTools();
    expect(tools).toHaveLength(18);
    for (const tool of tools) expect(tool.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
    const extract = tools.find((t) => t.name === 'extract')!.inputSchema as Record<string, any>;
    expect(extract.properties).toEqual(dtoJsonSchema(ExtractRequestDto).properties);
    expect(extract.properties.url).toMatchObject({ type: 'string', maxLength: 2048, pattern: HTTP_URL_PATTERN.source });
    const crawl = tools.find((t) => t.name === 'crawl_start')!;
    expect(crawl.inputSchema.properties).toMatchObject({
      wait: { type: 'boolean' },
      timeout: { type: 'integer', minimum: 1, maximum: 600 },
    });
    expect(crawl.description).toMatch(/Needs: the "crawl" scope\.$/);
    expect(tools.find((t) => t.name === 'list_sites')!.description).toMatch(/Needs: a full-access key\.$/);
  });

  it('refuse a tool argument that is also a body field (it would be ambiguous)', () => {
    class Clash {
      @IsOptional() @IsString() wait?: string;
    }
    expect(() => toolInputSchema({ name: 'x', body: Clash, args: FollowArgs })).toThrow(/"wait" is also a field of its REST body/);
  });

  it('answer a refusal as a tool error: the problem detail, then the problem', () => {
    const problem = {
      status: 422,
      title: 'Validation failed',
      detail: 'Bad.',
      errors: [{ location: 'body.url', message: 'must be a URL' }],
    };
    const result = toCallToolResult({ ok: false, problem });
    expect(result.isError).toBe(true);
    expect(result.content[0]).toEqual({ type: 'text', text: 'Validation failed (422): Bad.\n- body.url: must be a URL' });
    expect(result.structuredContent).toEqual(problem);
    const fine = toCallToolResult({ ok: true, structured: { a: 1 }, summary: 'One.' });
    expect(fine).toEqual({
      content: [
        { type: 'text', text: 'One.' },
        { type: 'text', text: '{"a":1}' },
      ],
      structuredContent: { a: 1 },
    });
  });

  it('send progress only with a token, and only when it grows', async () => {
    const sent: unknown[] = [];
    const notify = async (n: { params: unknown }) => void sent.push(n.params);
    await progressSink(undefined, notify).report(1, 2);
    const sink = progressSink('t', notify);
    await sink.report(1, 4, 'a');
    await sink.report(1, 4, 'again');
    await sink.report(3, 4);
    expect(sent).toEqual([
      { progressToken: 't', progress: 1, total: 4, message: 'a' },
      { progressToken: 't', progress: 3, total: 4 },
    ]);
  });
});
