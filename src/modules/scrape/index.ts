// Public surface of the scrape module: what other modules use of it (a lint rule keeps them to it).
export { scrapeInputSchema } from './scrape.input.js';
export { ScrapeService } from './scrape.service.js';
export { CrawlProcessPool } from './crawl-process-pool.js';
export { createScrapeHandler, inlineCrawler, type Crawler } from './scrape.job.js';
export { SCRAPE_JOB_KIND } from './scrape.service.js';
export { setupScrape } from './scrape.setup.js';
