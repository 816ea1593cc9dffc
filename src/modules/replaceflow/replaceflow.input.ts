// What ReplaceFlow accepts (spec "ReplaceFlow", "Limits"): the only statement of its inputs.
import { z } from 'zod';
import { absoluteHttpUrl } from '../../platform/validation.js';

export const DEFAULT_MAX_RESULTS = 4;
export const MAX_RESULTS = 10;

const ARTICLE_URL_REQUIRED = 'article_url is required: the full URL of the article page';

const articleUrl = absoluteHttpUrl(ARTICLE_URL_REQUIRED, { nonEmpty: true }).describe('the article page: an absolute http or https URL');

export const replaceflowSchema = z.object({
  article_url: articleUrl,
  max_results: z
    .number({ error: `expected an integer from 1 to ${MAX_RESULTS}` })
    .int(`expected an integer from 1 to ${MAX_RESULTS}`)
    .min(1, `expected an integer from 1 to ${MAX_RESULTS}`)
    .max(MAX_RESULTS, `expected an integer from 1 to ${MAX_RESULTS}`)
    .default(DEFAULT_MAX_RESULTS)
    .describe(`clean discoveries at most: 1 to ${MAX_RESULTS}; default ${DEFAULT_MAX_RESULTS}`),
  phash: z.boolean({ error: 'expected true or false' }).default(true).describe('compare candidates by perceptual hash (default true; false is faster)'),
});

/** The demo takes the article only: it runs with the defaults (docs/rest-api.md "ReplaceFlow"). */
export const demoSchema = z.object({ article_url: articleUrl });
