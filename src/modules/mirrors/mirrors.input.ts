// What a bulk mirror request may be (docs/rest-api.md "Bulk mirror"): a CSV file and/or a JSON array of URLs,
// every URL an absolute http(s) one, normalised so that spellings of one address count once.
import { parse } from 'csv-parse/sync';
import { z } from 'zod';
import { InvalidInput, PayloadTooLarge } from '../../platform/errors.js';

export const MAX_URL_LENGTH = 2048;
/** Room for the largest allowed list of the longest URLs, quoted. */
export const MAX_CSV_BYTES = 2 * 1024 * 1024;

export const MIRROR_CHECK_STATES = ['pending', 'matched', 'unmatched'] as const;
export type MirrorCheckState = (typeof MIRROR_CHECK_STATES)[number];

/** The JSON field; the file arrives beside it (multipart). */
export const bulkMirrorSchema = z.object({
  urls: z
    .array(z.string({ error: 'expected URL strings' }), { error: 'expected an array of URL strings, e.g. ["https://example.com/a.jpg"] (JSON text in a form)' })
    .optional(),
});

/** One URL as sent, with where it was: `urls.3`, or `file: line 4, column 2`. */
export interface SentUrl {
  text: string;
  where: string;
}

/**
 * The address a URL names, as the service compares and stores it: trimmed, scheme and host in
 * lower case (the WHATWG URL parser's form: default port dropped, path percent-encoded), without
 * its fragment (never sent to the server). A problem is a message for the caller.
 */
export function normaliseUrl(text: string): { url: string } | { problem: string } {
  const trimmed = text.trim();
  if (trimmed.length > MAX_URL_LENGTH) return { problem: `expected at most ${MAX_URL_LENGTH} characters` };
  const parsed = /^https?:\/\//i.test(trimmed) ? URL.parse(trimmed) : null;
  if (!parsed) return { problem: `expected an absolute http or https URL, not ${JSON.stringify(trimmed.slice(0, 80))}` };
  parsed.hash = '';
  if (parsed.href.length > MAX_URL_LENGTH) return { problem: `expected at most ${MAX_URL_LENGTH} characters (once normalised)` };
  return { url: parsed.href };
}

/**
 * The URLs of a CSV file: one per line or per cell (comma-separated, RFC 4180 quoting, CRLF, LF or
 * CR line ends, a UTF-8 BOM), blank cells and lines skipped. A first line without any http(s) URL is
 * a header and is skipped; every other cell must be a URL (checked by the caller, which knows where
 * each came from).
 */
export function urlsInCsv(body: Buffer): SentUrl[] {
  if (body.length > MAX_CSV_BYTES) throw new PayloadTooLarge(`file: expected a CSV of at most ${MAX_CSV_BYTES.toLocaleString('en-US')} bytes`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    throw new InvalidInput('file: expected a CSV text file in UTF-8', 'file');
  }
  if (text.includes('\u0000')) throw new InvalidInput('file: expected a CSV text file, not binary data', 'file');
  let records: Array<{ record: string[]; info: { lines: number } }>;
  try {
    // With `info`, each record comes with where it ended (csv-parse's typings return plain records).
    records = parse(text, { bom: true, relax_column_count: true, skip_empty_lines: true, trim: true, info: true, record_delimiter: ['\r\n', '\n', '\r'] }) as unknown as typeof records;
  } catch (error) {
    throw new InvalidInput(`file: not a readable CSV: ${(error as Error).message}`, 'file');
  }
  const found: SentUrl[] = [];
  records.forEach(({ record, info }, index) => {
    if (index === 0 && !record.some((cell) => 'url' in normaliseUrl(cell))) return; // a header line
    record.forEach((cell, column) => {
      if (cell !== '') found.push({ text: cell, where: `file: line ${info.lines}, column ${column + 1}` });
    });
  });
  return found;
}
