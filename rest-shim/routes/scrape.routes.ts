// Spec "Scraping": POST /api/scrape starts a scrape job, declared in src/modules/scrape/scrape.operations.ts; jobs.routes.ts polls it.
import { restRoutesOf } from '../derive.js';
import { scrapeOperations } from '../../src/modules/scrape/scrape.operations.js';

export const scrapeRoutes = restRoutesOf(scrapeOperations);
