// Reading values as pages write them: HTML entities left in URLs, class and id words, pixel counts.
import type { Element } from './page-elements.js';

const NAMED_ENTITIES: Record<string, string> = { amp: '&', quot: '"', apos: "'", lt: '<', gt: '>', nbsp: ' ', sol: '/', colon: ':', quest: '?', equals: '=' };

/** Decodes HTML entities left in a URL: raw script text is not decoded by the parser, and some CMSs double-encode attributes. */
export function decodeEntities(value: string): string {
  if (!value.includes('&')) return value;
  return value.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (entity, name: string) => {
    if (name[0] !== '#') return NAMED_ENTITIES[name.toLowerCase()] ?? entity;
    const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
  });
}

/** Splits class names, ids and URL parts into lowercase words: "wp-post-image" and "heroImage" become "wp post image" and "hero image". */
export function words(value: string): string {
  if (value.trim() === '') return ' '; // most wrappers have no class or id: skip the regexes
  let result = WORDS_CACHE.get(value);
  if (result === undefined) {
    result = ` ${value.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().replace(/[^a-z0-9]+/g, ' ')} `;
    // Pages repeat the same few class names hundreds of times; a bounded memo keeps that cheap.
    if (WORDS_CACHE.size >= 4096) WORDS_CACHE.clear();
    WORDS_CACHE.set(value, result);
  }
  return result;
}

const WORDS_CACHE = new Map<string, string>();

/** Whether an element's class or id has one of the words. */
export function classOrIdMatches(node: Element, pattern: RegExp): boolean {
  const attribs = node.attribs;
  if (!attribs) return false;
  return (attribs.class !== undefined && pattern.test(words(attribs.class))) || (attribs.id !== undefined && pattern.test(words(attribs.id)));
}

/** A plain pixel count ("600", "600px"); percentages and "auto" say nothing about the file. */
export function pixels(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const plain = Number(value);
  if (Number.isFinite(plain)) return plain >= 0 ? plain : undefined;
  const match = /^\s*(\d+(?:\.\d+)?)\s*px\s*$/i.exec(value);
  return match ? Number(match[1]) : undefined;
}
