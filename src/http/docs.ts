// GET /openapi.json: the OpenAPI 3.1 document of the REST API, made from the route table on the first
// request and kept (rest-shim/openapi.ts). GET /docs: a browsable page of it (Swagger UI from the
// swagger-ui-dist package, served from node_modules as it is, in development and from the build
// alike). The page loads nothing from elsewhere (its CSP allows this origin only), and nothing of
// it is read or held in memory until someone asks for it: the files stream from disk.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Router, type Response } from 'express';

export const OPENAPI_PATH = '/openapi.json';
export const DOCS_PATH = '/docs';

/** The page's own files, by the name the page asks for: Swagger UI's, and our start script. */
const UI_FILES: Record<string, { file: string; type: string }> = {
  'swagger-ui.css': { file: 'swagger-ui.css', type: 'text/css; charset=utf-8' },
  'swagger-ui-bundle.js': { file: 'swagger-ui-bundle.js', type: 'text/javascript; charset=utf-8' },
  'favicon.png': { file: 'favicon-32x32.png', type: 'image/png' },
};

/** Scripts from this origin only (no inline script); Swagger UI styles elements inline. */
export const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const START_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '${OPENAPI_PATH}',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    tryItOutEnabled: false,
    persistAuthorization: false,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout'
  });
});
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Image service API</title>
<link rel="icon" type="image/png" href="${DOCS_PATH}/favicon.png">
<link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">
</head>
<body>
<noscript>This page needs JavaScript. The document itself is at <a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a>.</noscript>
<div id="swagger-ui"></div>
<script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
<script src="${DOCS_PATH}/start.js"></script>
</body>
</html>
`;

/** What the document says of itself; the builder (rest-shim/openapi.ts) adds every route. */
export interface OpenApiInfo {
  title: string;
  version: string;
  description: string;
}

export interface DocsOptions {
  /** Builds the document from the route table (the composition root hands it in). */
  buildDocument: (info: OpenApiInfo) => Promise<Record<string, unknown>>;
  /** PUBLIC_BASE_URL, when set: the document's server. */
  publicBaseUrl?: string;
}

export function docsRouter({ buildDocument, publicBaseUrl }: DocsOptions): Router {
  const router = Router();
  let document: string | undefined;
  let uiFolder: string | undefined;

  router.get(OPENAPI_PATH, async (_req, res) => {
    // Its builder loads with the first request; the document is kept (about 180 KB) from then on.
    document ??= JSON.stringify({
      ...(await buildDocument({
        title: 'Image service',
        version: packageVersion(),
        description:
          'The REST API. Every JSON answer starts with `success`; failures are `{"success": false, "error": "<message>"}`. A known path called with a method it does not have answers 405 with `Allow`. The same operations are served as GraphQL at /graphql.',
      })),
      ...(publicBaseUrl ? { servers: [{ url: publicBaseUrl }] } : {}),
    });
    res.status(200).set({ 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-cache', 'Access-Control-Allow-Origin': '*' }).send(document);
  });

  router.get(DOCS_PATH, (_req, res) => {
    pageHeaders(res).type('html').send(PAGE);
  });
  router.get(`${DOCS_PATH}/start.js`, (_req, res) => {
    pageHeaders(res).type('text/javascript').send(START_SCRIPT);
  });
  router.get(`${DOCS_PATH}/:file`, (req, res, next) => {
    const entry = UI_FILES[req.params.file];
    if (!entry) return next();
    uiFolder ??= swaggerUiFolder();
    res.set({ 'Content-Type': entry.type, 'X-Content-Type-Options': 'nosniff' });
    res.sendFile(join(uiFolder, entry.file), { maxAge: '1d', headers: { 'Content-Type': entry.type } }, (error) => {
      if (error && !res.headersSent) next(error);
    });
  });
  return router;
}

function pageHeaders(res: Response): Response {
  return res.set({ 'Content-Security-Policy': DOCS_CSP, 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer', 'X-Frame-Options': 'DENY', 'Cache-Control': 'no-cache' });
}

/** The installed swagger-ui-dist, resolved from this file (src/ or the build's copy of it alike). */
export function swaggerUiFolder(): string {
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}

/** The version in the project's package.json (the nearest one above this file that names the project). */
function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      const pkg = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'image-service' && pkg.version) return pkg.version;
    }
    const parent = dirname(dir);
    if (parent === dir) return '0.0.0';
    dir = parent;
  }
}
