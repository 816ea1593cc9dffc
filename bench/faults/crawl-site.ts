// The crawl benchmark's generated site (bench/crawl/site.ts) in a process of its own, for the fault
// scripts (common.ts startCrawlSite); it reports its URL over IPC and ends when the parent goes.
import { runSiteServer } from '../crawl/site.js';

await runSiteServer();
