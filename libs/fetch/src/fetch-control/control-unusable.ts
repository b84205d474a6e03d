import { AppError } from '@app/core';

/**
 * A job's fetch control that this process cannot honour (a proxy pool the operator removed since it was named):
 * the fetch fails rather than go out without it. The reads besides a page (robots.txt) pass it on instead of
 * reading it as an unreachable file, so the page fails on it, as its own fetch would (docs/proxies.md).
 */
export class FetchControlUnusable extends AppError {}
