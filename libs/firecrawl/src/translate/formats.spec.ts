import { FirecrawlError } from '../wire/errors';
import { planFormats } from './formats';

const refusal = (formats: unknown[]) => {
  try {
    planFormats({ formats: formats as never });
  } catch (error) {
    return error as FirecrawlError;
  }
  throw new Error('expected a refusal');
};

describe("planFormats (Firecrawl's formats in Gleaner's terms)", () => {
  it('defaults to markdown and always asks for page_info (the metadata)', () => {
    const plan = planFormats({});
    expect([...plan.wanted]).toEqual(['markdown']);
    expect(plan.gleanerFormats).toEqual(['page_info', 'markdown']);
  });

  it('maps rawHtml and images to raw_html, a full-page screenshot in either spelling', () => {
    const plan = planFormats({ formats: ['rawHtml', 'images', 'links', 'screenshot@fullPage'] });
    expect(plan.gleanerFormats).toEqual(['page_info', 'raw_html', 'links', 'screenshot']);
    expect(plan.fullPageScreenshot).toBe(true);
    expect(planFormats({ formats: [{ type: 'screenshot', fullPage: true }] }).fullPageScreenshot).toBe(true);
  });

  it('reads json (schema and/or prompt) and changeTracking in git-diff mode', () => {
    const plan = planFormats({
      formats: ['markdown', { type: 'json', prompt: 'p', schema: { type: 'object' } }, { type: 'changeTracking', modes: ['git-diff'] }],
    });
    expect(plan.json).toEqual({ schema: { type: 'object' }, prompt: 'p' });
    expect(plan.changeTracking).toEqual({ modes: ['git-diff'], tag: null, json: null });
    const json = planFormats({
      formats: ['markdown', { type: 'changeTracking', modes: ['json'], tag: 'prices', schema: { type: 'object' }, prompt: 'p' }],
    });
    expect(json.changeTracking).toEqual({ modes: ['json'], tag: 'prices', json: { schema: { type: 'object' }, prompt: 'p' } });
    // Without its own schema the json mode takes the json format's.
    const borrowed = planFormats({
      formats: ['markdown', { type: 'json', schema: { type: 'object', title: 'j' } }, { type: 'changeTracking', modes: ['json'] }],
    });
    expect(borrowed.changeTracking?.json).toEqual({ schema: { type: 'object', title: 'j' } });
  });

  it('refuses by name what this server does not make', () => {
    expect(refusal(['markdown', 'branding'])).toMatchObject({
      status: 400,
      code: 'NOT_SUPPORTED',
      message: expect.stringMatching(/^formats\[1\]: the format 'branding'/),
    });
    expect(refusal(['json']).message).toMatch(/json format is an object/);
    expect(refusal([{ type: 'json' }]).message).toMatch(/needs a 'schema' or a 'prompt'/);
    expect(refusal([{ type: 'screenshot', viewport: { width: 10, height: 10 } }]).message).toMatch(/viewport/);
    expect(refusal(['changeTracking']).message).toMatch(/markdown format too/);
    expect(refusal(['markdown', { type: 'changeTracking', modes: ['json'], prompt: 'p' }]).message).toMatch(
      /^formats\[1\]\.schema: the json mode without a schema/,
    );
  });
});
