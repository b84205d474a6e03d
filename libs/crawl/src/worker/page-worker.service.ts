import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { Counter } from 'prom-client';
import { PageExtractor } from '@app/extraction';
import { isTerminal, jobControlChannel } from '@app/jobs';
import { textHash } from '@app/monitors';
import type { LoadedPage } from '@app/pages';
import { HandBackError, type QueueMessage } from '@app/queue';
import { isArchiveSource } from '../crawl-input';
import { CrawlPageSources, CrawlPorts, CrawlRecords } from '../crawl-process';
import { CRAWL_PAGES_QUEUE, MAX_LINKS_PER_PAGE, pageTaskId, type PageOutcome, type PageTaskPayload } from '../crawl.types';
import { workerCrashVerdict } from '../page-retry-policy';
import { toStoredOutcome } from '../stored-outcome';
import { ArchivedPages } from './archived-pages';
import { canonicalOf, duplicateCheck } from './duplicate-check';
import { DomainLabels } from './domain-labels';
import { ExclusiveGate } from './exclusive-gate';
import { OutcomeWriteBatch } from './outcome-write-batch';
import { monitorObservation, unchangedOutcome, type MonitorNote } from './monitor-note';
import { JobContexts, type JobContext } from './job-contexts';
import { PageFetch } from './page-fetch';
import { PagePagination, pagesText } from './page-pagination';
import { crawlPagePlan, extractionOutcome } from './page-outcomes';

/**
 * The page worker pool: every crawler process consumes page tasks of every crawl (the crawl's owner
 * dispatches them), so one big crawl gets faster when the crawler service scales. A task is one
 * page: politeness slot → fetch (address guard on every hop; page-fetch.ts) → HTML → markdown and links →
 * the page pipeline's extraction (PageExtractor, @app/extraction) → one outcome record, reported to the owner. The worker never writes the frontier.
 * A page whose worker died PAGE_RETRY_LIMITS.workerCrashes times while it ran alone there is reported as
 * `worker_crash` (workerCrashVerdict).
 */
@Injectable()
export class PageWorkerService implements OnApplicationBootstrap {
  private readonly contexts: JobContexts;
  private readonly outcomes: Counter<'outcome'>;
  private readonly pauses: Counter<'domain'>;
  private readonly domains = new DomainLabels(20);
  private readonly gate = new ExclusiveGate();
  private readonly archived: ArchivedPages;
  private readonly fetch: PageFetch;
  private readonly pagination: PagePagination;
  private readonly outcomeWrites: OutcomeWriteBatch;

  constructor(
    private readonly ports: CrawlPorts,
    private readonly records: CrawlRecords,
    private readonly sources: CrawlPageSources,
    private readonly extractor: PageExtractor,
  ) {
    const { config, logger, metrics, politeness } = ports;
    const { loader, archive } = sources;
    this.archived = new ArchivedPages(archive, loader, logger);
    // The repository's parts are opened with the module (onModuleInit): looked up when a batch is written.
    this.outcomeWrites = new OutcomeWriteBatch({ finishOutcomes: (items) => records.repository.outcomes.finishOutcomes(items) }, ports.bus);
    this.contexts = new JobContexts((jobId) => records.jobsRepository.findForWorker(jobId));
    this.outcomes = metrics.once(
      'gleaner_crawl_page_tasks_total',
      () =>
        new Counter({
          name: 'gleaner_crawl_page_tasks_total',
          help: 'Crawl page tasks run by this process, by outcome (completed, failed, rate_limited, deferred, skipped, cancelled). Unit: tasks.',
          labelNames: ['outcome'],
          registers: [metrics.registry],
        }),
    );
    this.pauses = metrics.once(
      'gleaner_rate_limit_pauses_total',
      () =>
        new Counter({
          name: 'gleaner_rate_limit_pauses_total',
          help: 'Pauses of a host for every worker after it answered 429, or 503 with Retry-After, by registrable domain (the first 20 domains paused by this process keep their name; the rest count as "other"). Unit: pauses.',
          labelNames: ['domain'],
          registers: [metrics.registry],
        }),
    );
    this.pagination = new PagePagination({ politeness, config, loader });
    this.fetch = new PageFetch(politeness, config, loader, records.repository, this.archived, this.pauses, this.domains);
    // From 0, so the first task of each outcome shows in rate() and increase().
    for (const outcome of ['completed', 'failed', 'rate_limited', 'deferred', 'skipped', 'cancelled'] satisfies PageOutcome['kind'][]) {
      this.outcomes.inc({ outcome }, 0);
    }
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.ports.queue.process<PageTaskPayload>(CRAWL_PAGES_QUEUE, this.ports.config.pageWorkers, (message, signal) =>
      this.handle(message, signal),
    );
  }

  /**
   * A page task, counted as delivered before anything else (the durable count a run its worker does not
   * survive leaves up: docs/crawl.md "A page that kills its worker"). The count answers whether an earlier run
   * never finished (its worker died, perhaps because of this very page): such a task runs alone in its process,
   * so that only the culprit of a crash reaches the worker_crash count. Whether the task is done already is read
   * only for such a task or one its owner sent again. One ledger write (a Redis command in a cluster) and no read
   * per task.
   */
  private async handle(message: QueueMessage<PageTaskPayload>, queueSignal: AbortSignal): Promise<void> {
    const task = message.payload;
    const taskId = pageTaskId(task.job_id, task.key, task.dispatch);
    // The task of a job that no longer exists (its tenant was deleted, docs/api.md "Users"): nothing to run,
    // and nothing to record (a delivery marker would outlive the job).
    if (!(await this.context(task.job_id)) && !(await this.records.jobsRepository.findForWorker(task.job_id))) return;
    const marker = await this.records.repository.outcomes.delivered(taskId, task.job_id, task.maybe_done === true);
    if (marker.done) return;
    const suspect = marker.deliveries > 1;
    await this.gate.run(suspect, () => this.deliver(task, taskId, suspect, queueSignal));
  }

  /**
   * One run of a page task (its delivery is counted already); a run `alone` in its process (a suspect's)
   * counts among the page's runs alone, the only deaths it is blamed for.
   */
  private async deliver(task: PageTaskPayload, taskId: string, alone: boolean, queueSignal: AbortSignal): Promise<void> {
    if (alone) {
      const marker = await this.records.repository.outcomes.ranAlone(taskId, task.job_id);
      if (marker.done) return;
      const crashed = workerCrashVerdict(marker);
      if (crashed) {
        await this.report(task, taskId, crashed);
        return;
      }
    }
    const context = await this.context(task.job_id);
    if (!context || isTerminal(context.job.status)) {
      await this.report(task, taskId, { kind: 'cancelled' });
      return;
    }

    const controller = new AbortController();
    const onShutdown = () => controller.abort(new HandBackError());
    queueSignal.addEventListener('abort', onShutdown, { once: true });
    const unsubscribe = await this.ports.bus.subscribe(jobControlChannel(task.job_id), (msg) => {
      if ((msg as { type?: string }).type === 'cancel') controller.abort(new Error('cancelled'));
    });
    try {
      const monitorId = context.input.monitor_id;
      const note: MonitorNote | null = monitorId
        ? { memory: await this.records.monitorPages.recall(monitorId, task.url), via: null, etag: null, lastModified: null, textHash: null }
        : null;
      const outcome = await this.run(task, context, controller.signal, note);
      if (controller.signal.reason instanceof HandBackError) throw controller.signal.reason;
      // What a monitor's run saw is stored before the owner hears of the page, so it is there when the crawl ends.
      const observation = note && !controller.signal.aborted ? monitorObservation(task, context.input, outcome, note) : null;
      if (observation) await this.records.monitorPages.observe(observation);
      await this.report(task, taskId, controller.signal.aborted ? { kind: 'cancelled' } : outcome);
    } catch (error) {
      if (controller.signal.reason instanceof HandBackError || error instanceof HandBackError) {
        await this.records.repository.outcomes.undeliver(taskId, task.job_id, alone); // handed back, not crashed
        throw new HandBackError();
      }
      if (controller.signal.aborted) {
        await this.report(task, taskId, { kind: 'cancelled' });
        return;
      }
      throw error; // a store failure: the queue delivers the task again
    } finally {
      queueSignal.removeEventListener('abort', onShutdown);
      await unsubscribe().catch(() => undefined);
    }
  }

  /**
   * Tells the owner the outcome. An owner in this process takes it directly and stores it with its commit batch
   * (local-outcomes.ts); otherwise it is stored here (first writer wins) and announced by bus, with the outcomes other
   * page workers of this process finish meanwhile (outcome-write-batch.ts).
   */
  private async report(task: PageTaskPayload, taskId: string, outcome: PageOutcome): Promise<void> {
    this.outcomes.inc({ outcome: outcome.kind });
    const stored = toStoredOutcome(outcome);
    if (this.records.localOutcomes.offer(taskId, outcome, stored)) return;
    await this.outcomeWrites.add({ taskId, jobId: task.job_id, outcome: stored });
  }

  private async run(task: PageTaskPayload, context: JobContext, signal: AbortSignal, note: MonitorNote | null): Promise<PageOutcome> {
    const { input, job } = context;
    const options = input.options;
    const started = Date.now();
    // A sitemap lastmod not after the last run's visit: unchanged without a request (docs/monitors.md "Cheap re-runs"),
    // unless the page's list goes on over next pages, which the page's lastmod says nothing of ("Paginated lists").
    if (note?.memory && options.use_sitemap && input.monitor_id && !(task.extract && PagePagination.applies(context))) {
      const lastmod = await this.records.monitorPages.lastmod(task.job_id, task.url);
      if (lastmod && Date.parse(lastmod) <= Date.parse(note.memory.fetchedAt)) {
        note.via = 'lastmod';
        note.etag = note.memory.etag;
        note.lastModified = note.memory.lastModified;
        note.textHash = note.memory.textHash;
        return unchangedOutcome(
          { url: task.url, status: 304, mode: 'static', durationMs: 0 },
          note.memory.links,
          note.memory.data,
          task.extract,
        );
      }
    }
    // A re-extraction or a WARC extraction reads its pages from the archive: no request reaches a site.
    const obtained = isArchiveSource(input.source)
      ? await this.archived.read(job, input.source, task.key, options.follow_selector ?? undefined, input.page_formats)
      : await this.fetch.fetch(task, context, signal, note, this.secretsOf(context, task.secrets));
    if ('kind' in obtained) return obtained;
    const page = obtained;
    // The page's archiving runs beside the rest of the task: it is done before the task's outcome is reported.
    try {
      return await this.afterFetch(task, context, page, signal, note, started);
    } finally {
      if ('kept' in page) await page.kept;
    }
  }

  /** The page's outcome once it is fetched: its links, a monitor's verdict, its formats or its extraction. */
  private async afterFetch(
    task: PageTaskPayload,
    context: JobContext,
    page: LoadedPage,
    signal: AbortSignal,
    note: MonitorNote | null,
    started: number,
  ): Promise<PageOutcome> {
    const { input } = context;
    const fetchMs = page.fetchDurationMs;
    // A batch follows no links: none are reported.
    const links = input.source ? [] : (page.content.selectedLinks ?? page.content.links).slice(0, MAX_LINKS_PER_PAGE).map((l) => l.url);
    // `canonicalize: strict`: the page's rel=canonical, for its owner to learn a www alias from (docs/dedup.md).
    const canonical = input.options.canonicalize === 'strict' ? canonicalOf(page) : null;
    const base = {
      final_url: page.fetch.url,
      http_status: page.fetch.status,
      fetch_mode: page.fetch.mode,
      links,
      fetch_duration_ms: fetchMs,
      ...(canonical ? { canonical_url: canonical } : {}),
    };
    const plan = task.extract ? crawlPagePlan(context, task.key) : null;
    const secrets = plan ? this.secretsOf(context, task.secrets) : {};
    // A monitor's paginated page: its next pages fetched before any model call, so that its text hash says whether
    // any page of its list changed (docs/monitors.md "Paginated lists"); they are extracted from what was fetched.
    const ahead =
      note && PagePagination.readsPages(context, plan) ? await this.pagination.collect(context, page, plan, secrets, signal) : null;
    if (note) {
      note.textHash = textHash(ahead ? pagesText(page, ahead) : page.content.markdown);
      if (note.memory && note.memory.textHash === note.textHash) {
        note.via = 'hash';
        return unchangedOutcome(page.fetch, links, note.memory.data, task.extract, fetchMs);
      }
    }
    if (!plan) return { kind: 'completed', ...base, extract_duration_ms: null, result: null };
    const extractStarted = Date.now();
    const run = { job: context.job, secrets, signal, plans: context.plans };
    let extracted = await this.extractor.extract(page, plan, {
      ...run,
      duplicates: duplicateCheck(task, context, this.records.repository, this.sources.duplicateIndex),
    });
    // `paginate`: the page's lists read over its next pages, into its one result (docs/long-lists.md "Pagination").
    if (PagePagination.applies(context))
      extracted = await this.pagination.read(
        context,
        page,
        extracted,
        plan,
        (next) => this.extractor.extract(next, plan, run),
        secrets,
        signal,
        ahead,
      );
    return extractionOutcome(extracted, page, base, { started, extractStarted }, signal);
  }

  private async context(jobId: string): Promise<JobContext | null> {
    return this.contexts.get(jobId);
  }

  /**
   * A task's sealed secrets, opened once per crawl and process (opening them for every page was a
   * measurable share of a 304 page's work in a monitor's run). A different sealed text is opened anew.
   */
  private secretsOf(context: JobContext, sealed: string | undefined): Record<string, string> {
    if (!sealed) return {};
    if (context.secrets?.sealed !== sealed) context.secrets = { sealed, opened: this.records.jobs.openSecrets(sealed) };
    return context.secrets.opened;
  }
}
