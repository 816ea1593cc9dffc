// Regex sweep of the raw HTML: image URLs in inline scripts, styles and attributes no other rule reads.
import type { CandidateSet } from './candidate-set.js';
import { decodeEntities } from './html-values.js';

const MAY_NAME_AN_IMAGE = /\.(jpe?g|png|webp|gif|avif)/i;
// One pass over the page, three shapes: an absolute or protocol-relative URL anywhere
// ("hero":"https://cdn.example/a.jpg?w=1200"), but not the tail of another scheme (ftp://); a CSS
// url(...), relative or not (background-image: url(/img/hero.webp)); a quoted root-relative path
// ("/uploads/2024/hero.jpg").
const SWEEP = /(?:https?:|(?<![\w:]))\/\/[^\s"'<>()\\`{}|^[\]]+|url\(\s*["']?([^"'()\s]+)["']?\s*\)|["'](\/(?!\/)[^"'\s<>]+)["']/gi;

export function regexCandidates(html: string, found: CandidateSet): void {
  // JSON in scripts escapes slashes, and attributes hold entity-encoded JSON: undo both first.
  const text = html.replace(/\\(?:\/|u002[fF])|&(?:quot|apos|amp|#0*(?:34|39)|#[xX]0*(?:22|27));/g, (escape) => (escape[0] === '\\' ? '/' : decodeEntities(escape)));
  for (const match of text.matchAll(SWEEP)) {
    const token = match[1] ?? match[2] ?? match[0];
    if (!MAY_NAME_AN_IMAGE.test(token)) continue;
    // A run of URLs joined by commas ("a.jpg,https://b.example/c.jpg") is several tokens.
    for (const part of token.includes(',') ? token.split(/,(?=(?:https?:)?\/\/)/) : [token]) {
      found.addSweepHit(/[.,;:!?]$/.test(part) ? part.replace(/[.,;:!?]+$/, '') : part);
    }
  }
}
