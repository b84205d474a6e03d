import type { PageLink } from './types';

const MAX_SAMPLE_LINKS = 20;

/**
 * Up to 20 absolute same-host links, most useful first: links of the follow-pattern groups (pagination
 * first, taking one per pattern in turn so every group is represented), then the rest in page order.
 */
export function pickSampleLinks(links: PageLink[], pageUrl: string, groups: string[][]): string[] {
  let page: URL;
  try {
    page = new URL(pageUrl);
  } catch {
    return [];
  }
  page.hash = '';
  const sameHost: string[] = [];
  const seen = new Set<string>([page.href]);
  for (const link of links) {
    try {
      const url = new URL(link.url, page);
      if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.host.toLowerCase() !== page.host.toLowerCase()) continue;
      url.hash = '';
      if (seen.has(url.href)) continue;
      seen.add(url.href);
      sameHost.push(url.href);
    } catch {
      /* skip unusable hrefs */
    }
  }
  const perPattern = groups.map((urls) => urls.filter((u) => seen.has(u) && u !== page.href));
  const out: string[] = [];
  const taken = new Set<string>();
  for (let i = 0; out.length < MAX_SAMPLE_LINKS && perPattern.some((list) => i < list.length); i++) {
    for (const list of perPattern) {
      if (i < list.length && !taken.has(list[i]) && out.length < MAX_SAMPLE_LINKS) {
        taken.add(list[i]);
        out.push(list[i]);
      }
    }
  }
  for (const u of sameHost) {
    if (out.length >= MAX_SAMPLE_LINKS) break;
    if (!taken.has(u)) {
      taken.add(u);
      out.push(u);
    }
  }
  return out;
}
