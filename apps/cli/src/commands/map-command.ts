import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { CliContext } from '../context';
import { EXIT, type ExitCode } from '../exit-codes';
import type { CommandKit } from '../program';
import { intParser } from '../request-options';

interface MapOptions {
  search?: string;
  limit?: number;
  sitemap?: boolean;
  subdomains?: boolean;
  output?: string;
}

interface MapAnswer {
  url: string;
  complete: boolean;
  count: number;
  found: number;
  urls: Array<{ url: string; source: string; text: string | null; score?: number }>;
}

const HELP_AFTER = `
Lists a site's URLs (POST /api/v1/map): its sitemaps and the seed page's
links, robots.txt respected, nothing extracted. One URL per line (to --output,
or stdout); --json prints the whole answer.

Examples:
  $ gleaner map https://shop.example/ --search pricing --limit 20
  $ gleaner map https://shop.example/ -o urls.txt && gleaner batch urls.txt --schema product.yaml`;

export function registerMap(program: Command, kit: CommandKit): void {
  program
    .command('map')
    .summary("list a site's URLs fast (sitemaps and the seed page's links)")
    .description('Maps a site (POST /api/v1/map) and prints its URLs.')
    .argument('<url>', 'the seed URL')
    .option('--search <term>', 'rank the URLs by this term (in the URL and the link text)')
    .option('--limit <n>', 'URLs at most (service default 5000)', intParser('--limit', 1))
    .option('--no-sitemap', 'do not read sitemaps (only the seed page)')
    .option('--subdomains', "keep every host of the seed's domain")
    .option('-o, --output <file>', 'write the URLs (one per line) to this file')
    .addHelpText('after', HELP_AFTER)
    .action(kit.action((ctx, [url], opts: MapOptions) => map(ctx, url ?? '', opts)));
}

async function map(ctx: CliContext, url: string, opts: MapOptions): Promise<ExitCode> {
  const body = Object.fromEntries(
    Object.entries({ url, search: opts.search, limit: opts.limit, use_sitemap: opts.sitemap, include_subdomains: opts.subdomains }).filter(
      ([, v]) => v !== undefined,
    ),
  );
  const answer = (await ctx.client().json<MapAnswer>('POST', '/api/v1/map', { body, timeoutMs: 0 })).body;
  if (ctx.json) {
    ctx.io.stdout.write(`${JSON.stringify(answer)}\n`);
    return EXIT.ok;
  }
  const text = answer.urls.map((u) => `${u.url}\n`).join('');
  if (opts.output) writeFileSync(opts.output, text);
  else ctx.io.stdout.write(text);
  ctx.info(
    `${answer.count} URLs${answer.found > answer.count ? ` of ${answer.found} found` : ''}${answer.complete ? '' : ' (the time budget ran out: partial)'}${opts.output ? ` in ${opts.output}` : ''}`,
  );
  return EXIT.ok;
}
