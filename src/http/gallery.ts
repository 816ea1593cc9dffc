// GET /gallery/<share_token>: the public page of a shared collection (spec "Share link
// (collection)"). Server-rendered HTML, every value escaped, no scripts: the collection's name and
// description and a grid of thumbnails (signed URLs) linking to the full-size files. Trashed items
// never show, and nothing of any other collection does.
//
// Who may see a gallery is the gallery service's rule (src/modules/collections/gallery.service.ts); this
// router renders its answers. A password-protected link first shows a password form that posts
// (urlencoded) to the same path; the right password sets an HttpOnly, SameSite=Lax cookie for this
// path only. A wrong password shows the form again; too many are refused (429). Unknown, revoked or
// malformed tokens answer the same 404 page.
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import type { Services } from '../platform/service-registry.js';
import type { Collection } from '../generated/prisma/client.js';
import type { MediaItem } from '../modules/media/media.service.js';
import { galleryPath } from '../modules/collections/collections.service.js';
import { GALLERY_COOKIE } from '../modules/collections/gallery.service.js';
import { signedMediaPath } from '../modules/media/media-urls.js';
import { html, SafeHtml } from './html.js';

export const GALLERY_CSP = "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
export const GALLERY_PAGE_SIZE = 100;

const SECURITY_HEADERS = {
  'Content-Security-Policy': GALLERY_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-store',
  'X-Robots-Tag': 'noindex, nofollow',
};

/** What the gallery pages use of the services. */
type GalleryDeps = Pick<Services, 'gallery' | 'collections' | 'signer' | 'logger'>;

export function galleryRouter(services: GalleryDeps): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 10 });

  router.get('/gallery/:token', (req, res) => guarded(res, services, () => showGallery(services, req, res)));
  router.post(
    '/gallery/:token',
    (req: Request, res: Response, next: NextFunction) => form(req, res, (error?: unknown) => (error ? send(res, 400, errorPage('That request could not be read.')) : next())),
    (req, res) => guarded(res, services, () => checkPassword(services, req, res)),
  );
  return router;
}

async function guarded(res: Response, services: GalleryDeps, handle: () => Promise<void>): Promise<void> {
  try {
    await handle();
  } catch (error) {
    services.logger.error({ err: error }, 'gallery page failed');
    if (!res.headersSent) send(res, 500, errorPage('Something went wrong. Please try again later.'));
  }
}

async function showGallery(services: GalleryDeps, req: Request, res: Response): Promise<void> {
  const token = String(req.params.token);
  const view = await services.gallery.view(token, cookieValues(req.get('cookie'), GALLERY_COOKIE));
  if (view.state === 'missing') return send(res, 404, notFoundPage());
  if (view.state === 'locked') return send(res, 200, passwordPage(token));

  const pageNumber = Math.max(1, Math.min(1_000_000, Number.parseInt(String(req.query.page ?? '1'), 10) || 1));
  const { items, total } = await services.collections.galleryItems(view.collection.id, { limit: GALLERY_PAGE_SIZE, offset: (pageNumber - 1) * GALLERY_PAGE_SIZE });
  // Relative signed URLs: same origin as the page (img-src 'self'), whatever PUBLIC_BASE_URL says.
  send(res, 200, galleryPage(token, view.collection, items, total, pageNumber, (media, variant) => signedMediaPath(services.signer, media, variant)));
}

async function checkPassword(services: GalleryDeps, req: Request, res: Response): Promise<void> {
  const token = String(req.params.token);
  const body = (req.body ?? {}) as Record<string, unknown>;
  const password = typeof body.password === 'string' ? body.password : '';
  const result = await services.gallery.unlock(token, password, req.ip ?? '');
  switch (result.state) {
    case 'missing':
      return send(res, 404, notFoundPage());
    case 'not-protected':
      return void res.redirect(303, galleryPath(token));
    case 'blocked':
      res.set('Retry-After', String(result.retryAfterSeconds));
      return send(res, 429, passwordPage(token, `Too many wrong passwords. Try again in ${Math.ceil(result.retryAfterSeconds / 60)} minutes.`));
    case 'wrong':
      return send(res, 401, passwordPage(token, 'That password is not right. Please try again.'));
    case 'unlocked': {
      const { name, value, path, maxAgeMs } = result.cookie;
      res.cookie(name, value, { path, maxAge: maxAgeMs, httpOnly: true, sameSite: 'lax', secure: req.secure });
      res.set(SECURITY_HEADERS);
      res.redirect(303, galleryPath(token));
    }
  }
}

function cookieValues(header: string | undefined, name: string): string[] {
  if (!header) return [];
  return header
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part.startsWith(`${name}=`))
    .map((part) => {
      const raw = part.slice(name.length + 1);
      try {
        return decodeURIComponent(raw);
      } catch {
        return raw;
      }
    });
}

// ---- pages ---------------------------------------------------------------------------------------

function send(res: Response, status: number, page: SafeHtml): void {
  res.status(status).set(SECURITY_HEADERS).type('text/html; charset=utf-8').send(page.value);
}

const STYLE = `
:root { color-scheme: light; --bg: #f5f6f8; --card: #fff; --text: #1c2230; --muted: #5f6877; --accent: #2f5fd0; --line: #e1e4ea; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--text); font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
.wrap { max-width: 1200px; margin: 0 auto; padding: 0 24px; }
header { padding: 40px 0 12px; }
h1 { margin: 0 0 6px; font-size: 30px; line-height: 1.2; letter-spacing: -0.01em; overflow-wrap: anywhere; }
.description { margin: 0 0 8px; max-width: 72ch; color: var(--muted); white-space: pre-line; overflow-wrap: anywhere; }
.count { margin: 0; color: var(--muted); font-size: 14px; }
main { padding: 16px 0 56px; }
.grid { list-style: none; margin: 0; padding: 0; display: grid; gap: 18px; grid-template-columns: repeat(auto-fill, minmax(210px, 1fr)); }
.tile a { display: block; background: var(--card); border-radius: 12px; overflow: hidden; color: inherit; text-decoration: none; box-shadow: 0 1px 2px rgba(16,24,40,.08), 0 1px 3px rgba(16,24,40,.10); transition: box-shadow .15s, transform .15s; }
.tile a:hover, .tile a:focus-visible { box-shadow: 0 6px 18px rgba(16,24,40,.16); transform: translateY(-2px); outline: none; }
.tile img, .tile .file { display: block; width: 100%; aspect-ratio: 1 / 1; object-fit: cover; background: #e7e9ee; }
.tile .file { display: flex; align-items: center; justify-content: center; color: var(--muted); font-size: 13px; text-transform: uppercase; letter-spacing: .08em; }
.tile .name { padding: 9px 12px 11px; font-size: 14px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.empty { color: var(--muted); }
nav.pages { display: flex; gap: 16px; justify-content: center; margin-top: 28px; }
nav.pages a { color: var(--accent); }
.card { max-width: 380px; margin: 12vh auto 0; background: var(--card); border-radius: 14px; padding: 28px 28px 24px; box-shadow: 0 8px 30px rgba(16,24,40,.12); }
.card h1 { font-size: 22px; }
.card p { color: var(--muted); margin: 0 0 18px; }
label { display: block; font-weight: 600; font-size: 14px; margin-bottom: 6px; }
input[type=password] { width: 100%; padding: 10px 12px; font: inherit; border: 1px solid var(--line); border-radius: 8px; background: #fff; }
input[type=password]:focus { outline: 2px solid var(--accent); outline-offset: 1px; border-color: var(--accent); }
button { margin-top: 14px; width: 100%; padding: 10px 14px; font: inherit; font-weight: 600; color: #fff; background: var(--accent); border: 0; border-radius: 8px; cursor: pointer; }
.card .error { margin: 0 0 14px; padding: 9px 12px; border-radius: 8px; background: #fdecec; color: #a11b1b; font-size: 14px; }
footer { padding: 0 0 32px; color: var(--muted); font-size: 12px; text-align: center; }
`;

function layout(title: string, body: SafeHtml): SafeHtml {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
<style>${new SafeHtml(STYLE)}</style>
</head>
<body>
${body}
</body>
</html>
`;
}

type FileUrl = (media: MediaItem, variant: 'original' | 'thumbnail') => string;

function galleryPage(token: string, collection: Collection, items: MediaItem[], total: number, pageNumber: number, fileUrl: FileUrl): SafeHtml {
  const pages = Math.max(1, Math.ceil(total / GALLERY_PAGE_SIZE));
  const tiles = items.map(
    (media, i) => html`<li class="tile"><a href="${fileUrl(media, 'original')}" title="${media.name}">${
      media.thumbnailKey
        ? html`<img src="${fileUrl(media, 'thumbnail')}" alt="${media.caption ?? media.name}"${i >= 24 ? html` loading="lazy"` : ''}>`
        : html`<span class="file">${media.ext || media.kind}</span>`
    }<div class="name">${media.name}</div></a></li>`,
  );
  const link = (n: number) => `${galleryPath(token)}${n > 1 ? `?page=${n}` : ''}`;
  const nav =
    pages > 1
      ? html`<nav class="pages">${pageNumber > 1 ? html`<a href="${link(pageNumber - 1)}">&larr; Previous</a>` : ''}<span>Page ${pageNumber} of ${pages}</span>${
          pageNumber < pages ? html`<a href="${link(pageNumber + 1)}">Next &rarr;</a>` : ''
        }</nav>`
      : '';
  return layout(
    collection.name,
    html`<div class="wrap">
<header>
<h1>${collection.name}</h1>
${collection.description ? html`<p class="description">${collection.description}</p>` : ''}
<p class="count">${total === 1 ? '1 item' : `${total} items`}</p>
</header>
<main>
${items.length > 0 ? html`<ul class="grid">${tiles}</ul>` : html`<p class="empty">${total > 0 ? 'No items on this page.' : 'This collection is empty.'}</p>`}
${nav}
</main>
</div>
<footer>Shared collection</footer>`,
  );
}

function passwordPage(token: string, error?: string): SafeHtml {
  return layout(
    'Protected gallery',
    html`<div class="card">
<h1>Protected gallery</h1>
<p>Enter the password you were given to see this collection.</p>
${error ? html`<p class="error" role="alert">${error}</p>` : ''}
<form method="post" action="${galleryPath(token)}">
<label for="password">Password</label>
<input type="password" id="password" name="password" required autocomplete="current-password" autofocus maxlength="200">
<button type="submit">View gallery</button>
</form>
</div>`,
  );
}

function notFoundPage(): SafeHtml {
  return errorPage('This gallery does not exist or is no longer shared.', 'Gallery not found');
}

function errorPage(message: string, title = 'Gallery'): SafeHtml {
  return layout(title, html`<div class="card"><h1>${title}</h1><p>${message}</p></div>`);
}
