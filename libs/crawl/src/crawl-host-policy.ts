/** The crawl's host policy lives with the politeness port: an extract's `paginate` pages ask for the same slot. */
export { crawlHostPolicy } from '@app/politeness';
