// JSON as pages embed it in scripts: parsed forgivingly, and searched for strings that can be URLs.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** A JSON string that can be a URL: absolute, protocol-relative, root-relative, or a relative image file name. */
export const URL_LIKE = /^\s*((https?:)?\/\/|\/[^/\s]|[^\s:]+\.(jpe?g|png|webp|gif|avif)(\?\S*)?\s*$)/i;

/** The URL-like strings of a JSON subtree (bounded). */
export function jsonStrings(value: Json, depth: number): string[] {
  if (depth > 8 || value === null || typeof value !== 'object') return typeof value === 'string' && URL_LIKE.test(value) ? [value] : [];
  return (Array.isArray(value) ? value : Object.values(value)).flatMap((child) => jsonStrings(child, depth + 1));
}

/** JSON.parse, then one forgiving retry (HTML comment or CDATA wrappers, raw control characters, trailing commas); undefined when still broken. */
export function parseJsonLoosely(text: string): Json | undefined {
  try {
    return JSON.parse(text) as Json;
  } catch {
    const cleaned = text
      .trim()
      .replace(/^(<!--|\/\/\s*<!\[CDATA\[|\/\*\s*<!\[CDATA\[\s*\*\/)/, '')
      .replace(/(-->|\/\/\s*\]\]>|\/\*\s*\]\]>\s*\*\/)$/, '')
      // eslint-disable-next-line no-control-regex -- raw newlines and tabs inside strings are the commonest breakage
      .replace(/[\u0000-\u001f]+/g, ' ')
      .replace(/,\s*([}\]])/g, '$1');
    try {
      return JSON.parse(cleaned) as Json;
    } catch {
      return undefined;
    }
  }
}
