import type { Playground } from '../fixtures/playground/playground';

/** The environment both deployments of the Firecrawl suites run with (the playground's names resolved to loopback). */
export function firecrawlEnv(play: Playground): Record<string, string> {
  return {
    GLEANER_ALLOW_NETWORKS: '127.0.0.0/8',
    GLEANER_RESOLVE: play.resolve,
    GLEANER_BROWSER_ENABLED: 'false',
    GLEANER_RATE_LIMIT_PER_MINUTE: '1000000',
    GLEANER_ROBOTS_RETRY_MS: '500',
    GLEANER_LLM_RETRIES: '0',
    GLEANER_EXTRACT_WAIT_MS: '60000',
    GLEANER_MAP_TIME_BUDGET_MS: '5000',
  };
}
