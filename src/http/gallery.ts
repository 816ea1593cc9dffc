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
import { html, type SafeHtml } from './html.js';
import { errorPage, guardedPage, layout, PAGE_CSP, PAGE_HEADERS, send } from './page.js';

/** The gallery's Content-Security-Policy: the service's page policy (images from the same origin only). */
export const GALLERY_CSP = PAGE_CSP;

export const GALLERY_PAGE_SIZE = 100;


/** What the gallery pages use of the services. */
type GalleryDeps = Pick<Services, 'gallery' | 'collections' | 'signer' | 'logger'>;

export function galleryRouter(services: GalleryDeps): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 10 });

  router.get('/gallery/:token', (req, res) => guardedPage(res, services.logger, 'Gallery', () => showGallery(services, req, res)));
  router.post(
    '/gallery/:token',
    (req: Request, res: Response, next: NextFunction) => form(req, res, (error?: unknown) => (error ? send(res, 400, errorPage('That request could not be read.', 'Gallery')) : next())),
    (req, res) => guardedPage(res, services.logger, 'Gallery', () => checkPassword(services, req, res)),
  );
  return router;
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
      res.set(PAGE_HEADERS);
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
