// A client of the Shopify Admin GraphQL API (shopify.dev/docs/api/admin-graphql): POST
// https://{shop}/admin/api/{version}/graphql.json with X-Shopify-Access-Token. The operations an
// export needs: stagedUploadsCreate and the multipart upload to its target, fileCreate, reading
// files back by id (nodes) until their fileStatus is READY or FAILED, fileUpdate with
// referencesToAdd to attach a file to a product, and reading a product.
// Rate limits: every answer carries extensions.cost.throttleStatus (a leaky bucket of points);
// the client waits for the bucket to refill before it runs dry, and a THROTTLED answer is retried
// once the refill covers the query. HTTP 429 is retried after Retry-After, 5xx and network failures
// with backoff; 401, 402 (frozen), 403 (scopes), 404 and 423 (locked) end the export.
import { setTimeout as sleep } from 'node:timers/promises';
import { FetchFailed, FetchRefused, type FetchedResponse, type SafeFetcher } from '../../../platform/http/safe-fetch.js';
import { AppError } from '../../../platform/errors.js';
import { DestinationRefused, ItemFailed, TryAgain, retrying, retryAfterMs } from './retry.js';

export interface ShopifyShop {
  /** The GraphQL endpoint: https://{shop}/admin/api/{version}/graphql.json (or the configured base). */
  endpoint: string;
  token: string;
}

export type ShopifyContentType = 'IMAGE' | 'VIDEO' | 'FILE';

export interface StagedTarget {
  url: string;
  resourceUrl: string;
  parameters: Array<{ name: string; value: string }>;
}

export interface ShopifyFileState {
  id: string;
  /** UPLOADED, PROCESSING, READY or FAILED. */
  status: string;
  url: string | null;
  errors: string[];
}

interface UserError {
  field?: string[] | null;
  message: string;
  code?: string | null;
}

interface ThrottleStatus {
  currentlyAvailable: number;
  restoreRate: number;
  maximumAvailable: number;
}

export interface ShopifyClientOptions {
  timeoutMs: number;
  retries: number;
}

const ANSWER_BYTES = 4 * 1024 * 1024;
/** Points kept in the bucket before a request is sent (our queries cost about 10 to 20 each). */
const RESERVE_POINTS = 50;

export class ShopifyClient {
  private throttle: (ThrottleStatus & { at: number }) | null = null;

  constructor(
    private readonly fetcher: SafeFetcher,
    private readonly options: ShopifyClientOptions,
  ) {}

  /** Reads the shop's name: proves the token works (401, 402, 423 end the export here, before any upload). */
  async checkShop(shop: ShopifyShop, signal?: AbortSignal): Promise<void> {
    await this.graphql<{ shop: { name: string } }>(shop, 'query ExportShop { shop { name } }', {}, signal);
  }

  /** Whether the product exists (and the token may read it): checked before anything is uploaded. */
  async productExists(shop: ShopifyShop, productId: string, signal?: AbortSignal): Promise<boolean> {
    const data = await this.graphql<{ product: { id: string } | null }>(shop, 'query ExportProduct($id: ID!) { product(id: $id) { id } }', { id: productId }, signal);
    return data.product !== null;
  }

  async stagedUpload(shop: ShopifyShop, file: { filename: string; mimeType: string; fileSize: number; resource: ShopifyContentType }, signal?: AbortSignal): Promise<StagedTarget> {
    const data = await this.graphql<{ stagedUploadsCreate: { stagedTargets: StagedTarget[] | null; userErrors: UserError[] } }>(
      shop,
      `mutation ExportStagedUpload($input: [StagedUploadInput!]!) {
        stagedUploadsCreate(input: $input) { stagedTargets { url resourceUrl parameters { name value } } userErrors { field message } }
      }`,
      { input: [{ filename: file.filename, mimeType: file.mimeType, fileSize: String(file.fileSize), resource: file.resource, httpMethod: 'POST' }] },
      signal,
    );
    const payload = data.stagedUploadsCreate;
    if (payload.userErrors.length > 0) throw new ItemFailed(`Shopify refused the staged upload: ${userErrors(payload.userErrors)}`);
    const target = payload.stagedTargets?.[0];
    if (!target?.url || !target.resourceUrl) throw new ItemFailed('Shopify answered stagedUploadsCreate without a target');
    return target;
  }

  /** The multipart POST to a staged target: its parameters first, then the file. */
  async upload(target: StagedTarget, file: { body: Buffer; filename: string; mimeType: string }, signal?: AbortSignal): Promise<void> {
    const form = new FormData();
    for (const { name, value } of target.parameters) form.append(name, value);
    form.append('file', new Blob([new Uint8Array(file.body)], { type: file.mimeType }), file.filename);
    const encoded = new Response(form);
    const body = Buffer.from(await encoded.arrayBuffer());
    const contentType = encoded.headers.get('content-type')!;
    await retrying(
      async () => {
        const response = await this.fetch(target.url, { method: 'POST', headers: { 'content-type': contentType }, body, signal }, 'the staged upload target');
        if (response.status >= 200 && response.status < 300) return;
        // The target's URL can carry a signature: messages name its origin only.
        const where = new URL(target.url).origin;
        if (response.status === 429 || response.status >= 500) throw new TryAgain(`the staged upload target ${where} answered ${response.status}`, retryAfterMs(response.headers.get('retry-after')));
        throw new ItemFailed(`the staged upload target ${where} refused the file (${response.status})`);
      },
      { retries: this.options.retries, signal },
    );
  }

  async fileCreate(shop: ShopifyShop, file: { originalSource: string; contentType: ShopifyContentType; alt: string; filename: string }, signal?: AbortSignal): Promise<ShopifyFileState> {
    const data = await this.graphql<{ fileCreate: { files: Array<{ id: string; fileStatus: string }> | null; userErrors: UserError[] } }>(
      shop,
      `mutation ExportFileCreate($files: [FileCreateInput!]!) {
        fileCreate(files: $files) { files { id fileStatus } userErrors { field message code } }
      }`,
      { files: [file] },
      signal,
    );
    const payload = data.fileCreate;
    if (payload.userErrors.length > 0) throw new ItemFailed(`Shopify refused the file: ${userErrors(payload.userErrors)}`);
    const created = payload.files?.[0];
    if (!created?.id) throw new ItemFailed('Shopify answered fileCreate without a file');
    return { id: created.id, status: created.fileStatus, url: null, errors: [] };
  }

  async files(shop: ShopifyShop, ids: string[], signal?: AbortSignal): Promise<Map<string, ShopifyFileState>> {
    type Node = { id?: string; fileStatus?: string; fileErrors?: Array<{ code?: string; message?: string; details?: string | null }>; image?: { url?: string } | null; url?: string | null } | null;
    const data = await this.graphql<{ nodes: Node[] }>(
      shop,
      `query ExportFiles($ids: [ID!]!) {
        nodes(ids: $ids) {
          ... on File { id fileStatus fileErrors { code message details } }
          ... on MediaImage { image { url } }
          ... on GenericFile { url }
        }
      }`,
      { ids },
      signal,
    );
    const found = new Map<string, ShopifyFileState>();
    for (const node of data.nodes) {
      if (!node?.id) continue;
      found.set(node.id, {
        id: node.id,
        status: node.fileStatus ?? 'UNKNOWN',
        url: node.image?.url ?? node.url ?? null,
        errors: (node.fileErrors ?? []).map((e) => [e.code, e.message, e.details].filter(Boolean).join(': ')),
      });
    }
    return found;
  }

  /** Polls a file until READY or FAILED; false when it is neither by the deadline. */
  async waitUntilProcessed(shop: ShopifyShop, id: string, { pollMs, timeoutMs, signal }: { pollMs: number; timeoutMs: number; signal?: AbortSignal }): Promise<ShopifyFileState> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const state = (await this.files(shop, [id], signal)).get(id) ?? { id, status: 'MISSING', url: null, errors: [] };
      if (state.status === 'READY' || state.status === 'FAILED' || Date.now() + pollMs > deadline) return state;
      await sleep(pollMs, undefined, { signal });
    }
  }

  async attachToProduct(shop: ShopifyShop, fileId: string, productId: string, signal?: AbortSignal): Promise<void> {
    const data = await this.graphql<{ fileUpdate: { userErrors: UserError[] } }>(
      shop,
      `mutation ExportAttach($files: [FileUpdateInput!]!) {
        fileUpdate(files: $files) { files { id } userErrors { field message code } }
      }`,
      { files: [{ id: fileId, referencesToAdd: [productId] }] },
      signal,
    );
    if (data.fileUpdate.userErrors.length > 0) throw new ItemFailed(`Shopify did not attach the file to ${productId}: ${userErrors(data.fileUpdate.userErrors)}`);
  }

  /** One GraphQL request, retried while throttled or failing on Shopify's side. */
  private async graphql<T>(shop: ShopifyShop, query: string, variables: Record<string, unknown>, signal?: AbortSignal): Promise<T> {
    return retrying(
      async () => {
        await this.waitForBudget(signal);
        const response = await this.fetch(
          shop.endpoint,
          {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/json', 'x-shopify-access-token': shop.token },
            body: JSON.stringify({ query, variables }),
            signal,
          },
          'Shopify',
        );
        return this.read<T>(response);
      },
      { retries: this.options.retries, signal },
    );
  }

  private read<T>(response: FetchedResponse): T {
    const json = parseJson(response.body) as { data?: unknown; errors?: unknown; extensions?: { cost?: { requestedQueryCost?: number; throttleStatus?: ThrottleStatus } } } | undefined;
    const status = response.status;
    if (status !== 200) {
      const detail = `${status}${topErrors(json?.errors) ? `: ${topErrors(json?.errors)}` : ''}`;
      if (status === 401) throw new DestinationRefused(`Shopify refused the access token (${detail})`);
      if (status === 402) throw new DestinationRefused(`the shop is frozen: its bill is unpaid (${detail})`);
      if (status === 403) throw new DestinationRefused(`the access token lacks an access scope this needs: write_files, and read_products and write_products to attach to a product (${detail})`);
      if (status === 404) throw new DestinationRefused(`no Shopify Admin API at this shop and API version (${detail})`);
      if (status === 423) throw new DestinationRefused(`the shop is locked (${detail})`);
      if (status === 429) throw new TryAgain(`Shopify limited the request rate (${detail})`, retryAfterMs(response.headers.get('retry-after')));
      if (status >= 500) throw new TryAgain(`Shopify could not serve the request (${detail})`);
      throw new ItemFailed(`Shopify answered ${detail}`);
    }
    const throttle = json?.extensions?.cost?.throttleStatus;
    if (throttle && typeof throttle.currentlyAvailable === 'number' && typeof throttle.restoreRate === 'number' && throttle.restoreRate > 0) {
      this.throttle = { ...throttle, at: Date.now() };
    }
    const errors = Array.isArray(json?.errors) ? (json.errors as Array<{ message?: string; extensions?: { code?: string } }>) : [];
    if (errors.some((e) => e.extensions?.code === 'THROTTLED')) {
      const requested = json?.extensions?.cost?.requestedQueryCost ?? RESERVE_POINTS;
      const wait = throttle && throttle.restoreRate > 0 ? Math.ceil((Math.max(0, requested - throttle.currentlyAvailable) / throttle.restoreRate) * 1000) : null;
      throw new TryAgain('Shopify throttled the query (THROTTLED)', wait);
    }
    if (errors.some((e) => e.extensions?.code === 'ACCESS_DENIED')) throw new DestinationRefused(`Shopify denied access: ${topErrors(errors)}`);
    if (errors.length > 0 || !json?.data) throw new ItemFailed(`Shopify answered with errors: ${topErrors(errors) || 'no data'}`);
    return json.data as T;
  }

  /** Waits until the bucket (as the last answer left it, refilled since) holds the reserve. */
  private async waitForBudget(signal?: AbortSignal): Promise<void> {
    if (!this.throttle) return;
    const { currentlyAvailable, restoreRate, maximumAvailable, at } = this.throttle;
    const now = Math.min(maximumAvailable ?? Infinity, currentlyAvailable + ((Date.now() - at) / 1000) * restoreRate);
    if (now >= RESERVE_POINTS) return;
    await sleep(Math.ceil(((RESERVE_POINTS - now) / restoreRate) * 1000), undefined, { signal });
  }

  private async fetch(url: string, request: { method: string; headers: Record<string, string>; body: string | Buffer; signal?: AbortSignal }, what: string): Promise<FetchedResponse> {
    try {
      return await this.fetcher.fetch(url, { ...request, timeoutMs: this.options.timeoutMs, maxBytes: ANSWER_BYTES, maxRedirects: 0 });
    } catch (error) {
      if (error instanceof FetchRefused) throw new DestinationRefused(`${what} cannot be reached: ${error.reason}`);
      if (error instanceof FetchFailed) throw new TryAgain(`${what} could not be reached: ${error.reason}`);
      if (error instanceof AppError) throw new ItemFailed(error.message);
      throw error;
    }
  }
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Shopify's top-level `errors`: a string (401 and the like) or GraphQL errors. */
function topErrors(errors: unknown): string {
  if (typeof errors === 'string') return errors.slice(0, 300);
  if (!Array.isArray(errors)) return '';
  return errors
    .map((e: { message?: unknown }) => (typeof e?.message === 'string' ? e.message : ''))
    .filter(Boolean)
    .join('; ')
    .slice(0, 300);
}

function userErrors(errors: UserError[]): string {
  return errors
    .map((e) => `${e.field?.length ? `${e.field.join('.')}: ` : ''}${e.message}${e.code ? ` (${e.code})` : ''}`)
    .join('; ')
    .slice(0, 500);
}
