// The shell of the service's few server-rendered pages (the shared gallery, sign-up): one style,
// strict security headers (no scripts at all, images from this origin only, no framing), every
// value escaped by html.ts.
import type { Response } from 'express';
import type { Logger } from '../platform/logger.js';
import { html, SafeHtml } from './html.js';

export const PAGE_CSP = "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export const PAGE_HEADERS = {
  'Content-Security-Policy': PAGE_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-store',
  'X-Robots-Tag': 'noindex, nofollow',
};

export function send(res: Response, status: number, page: SafeHtml): void {
  res.status(status).set(PAGE_HEADERS).type('text/html; charset=utf-8').send(page.value);
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
input[type=password], input[type=text] { width: 100%; padding: 10px 12px; font: inherit; border: 1px solid var(--line); border-radius: 8px; background: #fff; }
input[type=password]:focus, input[type=text]:focus { outline: 2px solid var(--accent); outline-offset: 1px; border-color: var(--accent); }
button { margin-top: 14px; width: 100%; padding: 10px 14px; font: inherit; font-weight: 600; color: #fff; background: var(--accent); border: 0; border-radius: 8px; cursor: pointer; }
.card .error { margin: 0 0 14px; padding: 9px 12px; border-radius: 8px; background: #fdecec; color: #a11b1b; font-size: 14px; }
pre, code { font: 13px/1.5 ui-monospace, SFMono-Regular, Menlo, monospace; }
.card pre { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--bg); padding: 10px 12px; border-radius: 8px; margin: 0 0 14px; }
footer { padding: 0 0 32px; color: var(--muted); font-size: 12px; text-align: center; }
`;

export function layout(title: string, body: SafeHtml): SafeHtml {
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

export function errorPage(message: string, title: string): SafeHtml {
  return layout(title, html`<div class="card"><h1>${title}</h1><p>${message}</p></div>`);
}

/** Runs a page's handler; an unexpected error is logged and answered with the page's 500. */
export async function guardedPage(res: Response, logger: Logger, title: string, handle: () => Promise<void>): Promise<void> {
  try {
    await handle();
  } catch (error) {
    logger.error({ err: error }, `${title.toLowerCase()} page failed`);
    if (!res.headersSent) send(res, 500, errorPage('Something went wrong. Please try again later.', title));
  }
}
