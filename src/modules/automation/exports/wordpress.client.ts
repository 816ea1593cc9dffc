// A client of the WordPress REST API's media endpoint (developer.wordpress.org/rest-api/reference/media/):
// first GET /wp-json/wp/v2/users/me?context=edit (reference/users/), which proves the address is a
// WordPress REST API and the credentials work, and says whether the user may upload_files, before
// any file is sent; then, per item, POST <site>/wp-json/wp/v2/media with the file's bytes as the body, its name in
// Content-Disposition and its type in Content-Type, Basic authentication with an application
// password. title, alt_text and caption are arguments of that same "create a media item" request
// (query parameters, as the body is the file); should the answer show them missing (a plugin that
// drops them), one POST /wp-json/wp/v2/media/<id> with JSON sets them. Errors come as
// {"code", "message", "data": {"status"}}.
import { FetchFailed, FetchRefused, type FetchedResponse, type SafeFetcher } from '../../../platform/http/safe-fetch.js';
import { AppError } from '../../../platform/errors.js';
import { DestinationRefused, ItemFailed, TryAgain, retrying, retryAfterMs } from './retry.js';

export interface WordPressSite {
  /** The site's address without a trailing slash (the REST API is under <baseUrl>/wp-json/). */
  baseUrl: string;
  user: string;
  password: string;
}

export interface WordPressFile {
  body: Buffer;
  filename: string;
  contentType: string;
  title: string;
  altText: string;
  caption: string;
}

export interface WordPressMedia {
  id: number;
  /** The file's own URL (source_url). */
  url: string;
}

export interface WordPressClientOptions {
  timeoutMs: number;
  retries: number;
}

/** Longest query string sent with an upload (servers commonly take URLs of 8 KB). */
const MAX_QUERY_CHARS = 4000;

/** Answers are small JSON documents; anything bigger is not WordPress talking. */
const ANSWER_BYTES = 2 * 1024 * 1024;

export class WordPressClient {
  constructor(
    private readonly fetcher: SafeFetcher,
    private readonly options: WordPressClientOptions,
  ) {}

  /** Refuses (DestinationRefused) credentials WordPress does not take and a user who may not upload. */
  async checkUser(site: WordPressSite, signal?: AbortSignal): Promise<void> {
    const me = await retrying(async () => this.answer(await this.send(site, '/wp-json/wp/v2/users/me?context=edit', { signal }), 'reading the user'), {
      retries: this.options.retries,
      signal,
    });
    // The edit context lists the user's capabilities; a site that filters them out is tried anyway.
    const capabilities = me.capabilities;
    if (capabilities && typeof capabilities === 'object' && (capabilities as Record<string, unknown>).upload_files !== true) {
      throw new DestinationRefused(`the WordPress user ${site.user} may not upload files (no upload_files capability)`);
    }
  }

  async upload(site: WordPressSite, file: WordPressFile, signal?: AbortSignal): Promise<WordPressMedia> {
    const meta = { title: file.title, alt_text: file.altText, caption: file.caption };
    // Long texts (a caption in a non-Latin script) would make a URL some servers refuse (414): they go in the update.
    const query = new URLSearchParams(meta).toString();
    const inline = query.length <= MAX_QUERY_CHARS;
    const created = await retrying(
      async () =>
        this.answer(
          await this.send(site, inline ? `/wp-json/wp/v2/media?${query}` : '/wp-json/wp/v2/media', {
            body: file.body,
            headers: { 'content-type': file.contentType, 'content-disposition': contentDisposition(file.filename) },
            signal,
          }),
          'uploading the file',
        ),
      { retries: this.options.retries, signal },
    );
    const media = readMedia(created);
    if (!media) throw new ItemFailed('WordPress accepted the upload but its answer has no media id and source_url');
    if (!inline || metadataMissing(created, meta)) {
      await retrying(
        async () =>
          this.answer(
            await this.send(site, `/wp-json/wp/v2/media/${media.id}`, { body: Buffer.from(JSON.stringify(meta)), headers: { 'content-type': 'application/json' }, signal }),
            `setting the title, alt text and caption of media ${media.id}`,
          ),
        { retries: this.options.retries, signal },
      );
    }
    return media;
  }

  /** POST with a body, GET without one. */
  private async send(site: WordPressSite, path: string, request: { body?: Buffer; headers?: Record<string, string>; signal?: AbortSignal }): Promise<FetchedResponse> {
    const authorization = `Basic ${Buffer.from(`${site.user}:${site.password}`, 'utf8').toString('base64')}`;
    try {
      return await this.fetcher.fetch(site.baseUrl + path, {
        method: request.body ? 'POST' : 'GET',
        headers: { ...request.headers, authorization, accept: 'application/json' },
        body: request.body,
        timeoutMs: this.options.timeoutMs,
        maxBytes: ANSWER_BYTES,
        // A redirected POST would arrive as a GET without the file; the caller should use the final address.
        maxRedirects: 0,
        signal: request.signal,
      });
    } catch (error) {
      if (error instanceof FetchRefused) throw new DestinationRefused(`the WordPress site cannot be reached: ${error.reason}`);
      if (error instanceof FetchFailed) {
        // A slow upload says nothing about the next one; a site that cannot be reached at all does.
        if (/timed out|cancelled/.test(error.reason)) throw new ItemFailed(`WordPress did not answer in time (${error.reason})`);
        throw new DestinationRefused(`the WordPress site cannot be reached: ${error.reason}`);
      }
      if (error instanceof AppError) throw new ItemFailed(error.message);
      throw error;
    }
  }

  /** The JSON of a 2xx answer, or the outcome the documented error answers mean. */
  private answer(response: FetchedResponse, doing: string): Record<string, unknown> {
    const json = parseJson(response.body);
    if (response.status >= 200 && response.status < 300) {
      if (!json || typeof json !== 'object' || Array.isArray(json)) throw new ItemFailed(`WordPress answered ${response.status} without a JSON object while ${doing}`);
      return json as Record<string, unknown>;
    }
    const detail = wpError(response.status, json);
    if (response.status >= 300 && response.status < 400) {
      const location = response.headers.get('location');
      const where = location && URL.canParse(location, response.url) ? new URL(location, response.url).origin : 'another address';
      throw new DestinationRefused(`WordPress redirected to ${where}; use the site's final https address as wp_url`);
    }
    if (response.status === 401 || response.status === 403) throw new DestinationRefused(`WordPress refused the credentials (${detail}); check wp_user and the application password, and that the user may upload files`);
    if (response.status === 404) throw new DestinationRefused(`no WordPress REST API at this wp_url (${detail}); it is looked for at <wp_url>/wp-json/`);
    if (response.status === 413) throw new ItemFailed(`WordPress refused the file as too large (${detail}): the site's upload limit is below this file's size`);
    if (response.status === 429 || response.status === 503) throw new TryAgain(`WordPress was busy (${detail}) while ${doing}`, retryAfterMs(response.headers.get('retry-after')));
    throw new ItemFailed(`WordPress answered ${detail} while ${doing}`);
  }
}

/** `attachment; filename="..."`, with a plain ASCII name (WordPress reads the simple form). */
export function contentDisposition(filename: string): string {
  return `attachment; filename="${asciiFilename(filename)}"`;
}

export function asciiFilename(filename: string): string {
  const cleaned = filename
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-.]+/, '');
  return cleaned.slice(-120) || 'file';
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** `401 rest_cannot_create: Sorry, you are not allowed ...` from WordPress's error shape (or the status alone). */
function wpError(status: number, json: unknown): string {
  const error = json && typeof json === 'object' ? (json as { code?: unknown; message?: unknown }) : {};
  const code = typeof error.code === 'string' ? ` ${error.code.slice(0, 80)}` : '';
  const message = typeof error.message === 'string' ? `: ${plain(error.message)}` : '';
  return `${status}${code}${message}`;
}

/** WordPress messages may carry HTML; they end up in JSON answers as text. */
function plain(text: string): string {
  return text
    .replace(/<[^>]*>/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 300);
}

function readMedia(json: Record<string, unknown>): WordPressMedia | null {
  const id = json.id;
  const url = json.source_url;
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id <= 0 || typeof url !== 'string') return null;
  return { id, url };
}

/** Whether the created item lacks what was asked (its answer is in the edit context: raw values). */
function metadataMissing(json: Record<string, unknown>, meta: { title: string; alt_text: string; caption: string }): boolean {
  const raw = (field: unknown) => (field && typeof field === 'object' ? (field as { raw?: unknown }).raw : field);
  const missing = (value: unknown, wanted: string) => wanted !== '' && (typeof value !== 'string' || value.trim() === '');
  return missing(json.alt_text, meta.alt_text) || missing(raw(json.caption), meta.caption) || missing(raw(json.title), meta.title);
}
