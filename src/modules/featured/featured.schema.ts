// A page's featured image as callers see it, stated once: the answer (REST names) and the GraphQL
// types made from it (src/graphql/answer-object.ts); the featuredImage query is declared in
// featured.operations.ts.
import { z } from 'zod';
import { answerEnum, answerObject } from '../../graphql/answer-object.js';
import type { FeaturedCandidate } from './featured.extractor.js';
import type { FeaturedImageResult } from './featured.service.js';
import { FEATURED_SOURCES } from './featured.extractor.js';

answerEnum('FeaturedSource', { values: FEATURED_SOURCES });

const score = z.int().min(0).max(100);
const candidate = z.object({ url: z.string(), score, source: z.enum(FEATURED_SOURCES) });
answerObject<FeaturedCandidate>('FeaturedCandidate', candidate, { fields: () => ({ score: { description: '0 to 100' } }) });

export const featuredImage = z.object({
  url: z.string().nullable().describe('the featured image; null when the page has none'),
  score: score.nullable(),
  source: z.enum(FEATURED_SOURCES).nullable(),
  page: z.string().describe('the page read, after redirects'),
  all: z.array(candidate).optional().describe('with all=true: every candidate, best first'),
});
export const FeaturedImageRef = answerObject<FeaturedImageResult>('FeaturedImage', featuredImage);
