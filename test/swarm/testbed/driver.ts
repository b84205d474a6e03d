/**
 * The scenario driver of `npm run test:swarm`: runs in a container on the stack's overlay network (with
 * the test daemon's socket, for `docker service scale/update`, `docker kill` and the logs), runs the eight
 * scenarios of issue 36 in order, each with its own verdict, and writes them to /out/results.json.
 * Configuration from the environment: SWARM_BOOTSTRAP_KEY, SWARM_SECRETS (JSON: variable → value of every
 * secret the stack was given), SWARM_STACK, SWARM_SITE, SWARM_MODEL, SWARM_SCENARIOS (optional: a subset).
 */
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { Api, answersSeen, untilDone } from './client';
import { crawlThousand, killOwner, scaleWhileCrawling } from './crawl-scenarios';
import { rollingUpdates, storeAndRedis } from './fault-scenarios';
import { backups, pagesCounterAgainstCrawl, pagesCounterBaseline, prometheus, secrets, targetsMatchReplicas } from './ops-scenarios';
import type { Context, Verdict } from './context';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

async function main(): Promise<void> {
  const started = Date.now();
  const secretValues = JSON.parse(env('SWARM_SECRETS')) as Record<string, string>;
  const leaks: string[] = [];
  const ctx: Context = {
    api: new Api(env('SWARM_BOOTSTRAP_KEY')),
    stack: env('SWARM_STACK'),
    siteHost: env('SWARM_SITE'),
    sitePort: 8000,
    modelBaseUrl: `http://${env('SWARM_MODEL')}:8001/v1`,
    llmKey: `sk-swarm-byok-${Math.random().toString(36).slice(2)}`,
    log: (message) => console.log(`[driver ${((Date.now() - started) / 1000).toFixed(0)} s] ${message}`),
    shared: { startedAt: started },
  };
  // Every answer the driver gets is searched for every secret value (scenario 6).
  answersSeen.scan = (text) => {
    for (const value of [...Object.values(secretValues), ctx.llmKey]) if (value && text.includes(value)) leaks.push(text.slice(0, 200));
  };
  const only = process.env.SWARM_SCENARIOS ? new Set(process.env.SWARM_SCENARIOS.split(',')) : null;
  await untilDone(
    'API ready',
    async () => (await ctx.api.once('GET', '/ready').catch(() => null))?.status === 200,
    async () => 0,
    300_000,
  );

  const verdicts: Verdict[] = [];
  const run = async (name: string, scenario: () => Promise<{ problems: string[]; numbers: Record<string, unknown> }>) => {
    if (only && !only.has(name.split(' ')[0])) return;
    const t = Date.now();
    // The machine's load average (a container reads the host's) beside the scenario's numbers: the
    // machine is shared, and every figure is indicative only with the load it was measured at.
    const load = () => loadavg().map((l) => Number(l.toFixed(1)));
    const loadAtStart = load();
    ctx.log(`scenario ${name}: start`);
    let verdict: Verdict;
    try {
      const { problems, numbers } = await scenario();
      verdict = { scenario: name, verdict: problems.length ? 'fail' : 'pass', problems, numbers, seconds: (Date.now() - t) / 1000 };
    } catch (error) {
      verdict = {
        scenario: name,
        verdict: 'fail',
        problems: [`threw: ${(error as Error).stack ?? String(error)}`],
        numbers: {},
        seconds: (Date.now() - t) / 1000,
      };
    }
    verdict.load = { start: loadAtStart, end: load() };
    ctx.log(`scenario ${name}: ${verdict.verdict.toUpperCase()} in ${verdict.seconds.toFixed(0)} s ${JSON.stringify(verdict.numbers)}`);
    for (const problem of verdict.problems) ctx.log(`  problem: ${problem}`);
    verdicts.push(verdict);
    writeFileSync('/out/results.json', JSON.stringify({ verdicts, shared: ctx.shared }, null, 2));
  };

  // Prometheus's sample of every crawler's pages counter before the crawl (scenario 7 counts from it).
  if (!only || only.has('7')) ctx.shared.pagesBaseline = await pagesCounterBaseline(ctx).catch((e: Error) => ({ error: e.message }));
  await run('1 crawl', () => crawlThousand(ctx));
  // Prometheus's count of scenario 1's pages, before any other crawl adds to the counter.
  if (!only || only.has('7')) ctx.shared.pagesCounter = await pagesCounterAgainstCrawl(ctx).catch((e: Error) => ({ error: e.message }));
  ctx.shared.onThreeCrawlers = async () => (ctx.shared.targetsAt3 = await targetsMatchReplicas(ctx));
  await run('2 scale', () => scaleWhileCrawling(ctx));
  await run('3 kill-owner', () => killOwner(ctx));
  await run('4 rolling-update', () => rollingUpdates(ctx));
  await run('5 store-redis', () => storeAndRedis(ctx));
  await run('6 secrets', () => secrets(ctx, secretValues, leaks));
  await run('7 prometheus', () => prometheus(ctx));
  await run('8 backups', () => backups(ctx));
  ctx.log(`done: ${verdicts.filter((v) => v.verdict === 'pass').length} of ${verdicts.length} scenarios pass`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
