// Deep links into the big web and reverse image search engines (GET /api/search-links).
// A query that is an http(s) URL also gets reverse image search links for that image.
import { z } from 'zod';
import { parseInput } from '../../platform/validation.js';

export const SEARCH_LINK_KINDS = ['web', 'images', 'reverse_image'] as const;

export interface SearchLink {
  name: string;
  kind: (typeof SEARCH_LINK_KINDS)[number];
  url: string;
}

export const querySchema = z.object({
  query: z
    .string({ error: 'query is required: the text (or image URL) to search for' })
    .trim()
    .min(1, 'query is required: the text (or image URL) to search for')
    .max(500, 'expected at most 500 characters')
    .describe('text, or an image URL (adds reverse image search links)'),
});

const TEXT_ENGINES: Array<[string, SearchLink['kind'], string]> = [
  ['Google', 'web', 'https://www.google.com/search?q='],
  ['Google Images', 'images', 'https://www.google.com/search?tbm=isch&q='],
  ['Bing', 'web', 'https://www.bing.com/search?q='],
  ['Bing Images', 'images', 'https://www.bing.com/images/search?q='],
  ['DuckDuckGo', 'web', 'https://duckduckgo.com/?q='],
  ['DuckDuckGo Images', 'images', 'https://duckduckgo.com/?iax=images&ia=images&q='],
  ['Yandex Images', 'images', 'https://yandex.com/images/search?text='],
  ['Baidu Images', 'images', 'https://image.baidu.com/search/index?tn=baiduimage&word='],
];

const REVERSE_ENGINES: Array<[string, string]> = [
  ['Google Lens', 'https://lens.google.com/uploadbyurl?url='],
  ['Bing Visual Search', 'https://www.bing.com/images/search?view=detailv2&iss=sbi&q=imgurl:'],
  ['TinEye', 'https://tineye.com/search?url='],
  ['Yandex Reverse Image Search', 'https://yandex.com/images/search?rpt=imageview&url='],
];

export function searchLinks(input: { query?: string | null }): { query: string; links: SearchLink[] } {
  const { query } = parseInput(querySchema, { query: input.query ?? undefined });
  const encoded = encodeURIComponent(query);
  const links: SearchLink[] = TEXT_ENGINES.map(([name, kind, base]) => ({ name, kind, url: base + encoded }));
  if (/^https?:\/\/\S+$/i.test(query)) {
    links.unshift(...REVERSE_ENGINES.map(([name, base]) => ({ name, kind: 'reverse_image' as const, url: base + encoded })));
  }
  return { query, links };
}
