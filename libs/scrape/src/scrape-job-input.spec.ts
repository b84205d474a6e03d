import { parseScrapeInput } from './scrape-job-input';

const BASE = {
  url: 'https://a.example/',
  formats: ['markdown'],
  only_main_content: true,
  full_page_screenshot: false,
  fetch_mode: 'auto',
  timeout_ms: null,
  fetch_control: null,
};
const JSON_INPUT = {
  schema: { type: 'object', properties: { title: { type: 'string' } } },
  schema_id: null,
  prompt: 'Titles only.',
  llm_config: null,
  provenance: 'summary',
  grounding: 'report',
  warnings: [],
};

describe('parseScrapeInput', () => {
  it('reads a scrape stored before the json format existed as one without it', () => {
    expect(parseScrapeInput(BASE).json).toBeNull();
  });

  it('reads the json format with its extraction', () => {
    const input = parseScrapeInput({ ...BASE, formats: ['markdown', 'json'], json: JSON_INPUT });
    expect(input.json).toEqual(JSON_INPUT);
  });

  it('refuses the json format without its extraction, and an extraction without the format', () => {
    expect(() => parseScrapeInput({ ...BASE, formats: ['json'] })).toThrow('go together');
    expect(() => parseScrapeInput({ ...BASE, json: JSON_INPUT })).toThrow('go together');
  });
});
