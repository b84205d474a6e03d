import { existsSync } from 'node:fs';
import * as cheerio from 'cheerio';
import { AppError } from '@app/core';
import type { Resolver } from '@app/fetch';

export const CHROMIUM = process.env.GLEANER_CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Runs browser suites; a missing Chromium fails them (npm test installs it first). */
export function describeWithChromium(title: string, body: () => void): void {
  if (existsSync(CHROMIUM)) {
    describe(title, body);
    return;
  }
  describe(title, () => {
    it('needs Chromium', () => {
      throw new Error(`Chromium not found at ${CHROMIUM} (npm test installs it; see test/harness/install-system-deps.sh)`);
    });
  });
}

/** Test names: *.test aliases of the fixture site (allowlisted), and names resolving to forbidden addresses. */
export const TEST_HOSTS: Record<string, string> = {
  'public.test': '127.0.0.1',
  'js.test': '127.0.0.1',
  'static.test': '127.0.0.1',
  'memory.test': '127.0.0.1',
  'robots.test': '127.0.0.1',
  'evil.test': '10.0.0.5',
  'rebind.test': '169.254.169.254',
};
export const ALLOWED_TEST_HOSTS = ['public.test', 'js.test', 'static.test', 'memory.test', 'robots.test'];

export const testResolver: Resolver = async (hostname) => {
  const address = TEST_HOSTS[hostname];
  if (!address) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return [{ address, family: 4 }];
};

export interface ParsedQuote {
  text: string;
  author: string;
  tags: string[];
}

/** Reads quotes out of HTML the way an extractor would (real elements, not script text). */
export function parseQuotes(html: string): ParsedQuote[] {
  const $ = cheerio.load(html);
  return $('.quote')
    .toArray()
    .map((el) => ({
      text: $(el).find('.text').text(),
      author: $(el).find('.author').text(),
      tags: $(el)
        .find('a.tag')
        .toArray()
        .map((t) => $(t).text()),
    }));
}

export async function failure(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected the fetch to fail');
}
