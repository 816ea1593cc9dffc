// The two destinations of an export, built per job from its input and opened secret: how one
// library item becomes a WordPress media item or a Shopify file (attached to a product when asked).
import type { BlobStore } from '../../../platform/storage/blob-store.js';
import type { UrlSigner } from '../../../platform/url-signer.js';
import { hostRefusal } from '../../../platform/http/address-policy.js';
import type { MediaItem } from '../../../generated/prisma/client.js';
import { signedMediaPath } from '../../media/index.js';
import type { Job } from '../../jobs/index.js';
import { readFile, type Destination } from './exports.job.js';
import { exportedMetadata } from './item-metadata.js';
import { DestinationRefused, ItemFailed } from './retry.js';
import type { ShopifySecret, ShopifyJobInput, WordPressJobInput, WordPressSecret } from './exports.service.js';
import type { WordPressClient } from './wordpress.client.js';
import type { ShopifyClient, ShopifyContentType, ShopifyShop } from './shopify.client.js';

export function wordpressDestination(job: Job, secret: string, deps: { blobs: BlobStore; client: WordPressClient }): Destination {
  const input = job.input as unknown as WordPressJobInput;
  const { user, password } = JSON.parse(secret) as WordPressSecret;
  const site = { baseUrl: input.wp_url, user, password };
  return {
    prepare: (signal) => deps.client.checkUser(site, signal),
    send: async (media, signal) => {
      const meta = exportedMetadata(media);
      const body = await readFile(deps.blobs, media);
      const created = await deps.client.upload(site, { body, filename: meta.filename, contentType: media.mime, title: meta.title, altText: meta.altText, caption: meta.caption }, signal);
      return { remoteId: String(created.id), remoteUrl: created.url };
    },
  };
}

/** A signed link to one of our files is good for this long: Shopify fetches it once, soon after fileCreate. */
export const SHOPIFY_LINK_SECONDS = 3600;

export interface ShopifyDestinationDeps {
  blobs: BlobStore;
  client: ShopifyClient;
  signer: UrlSigner;
  /** PUBLIC_BASE_URL, when set. */
  publicBaseUrl?: string;
  apiVersion: string;
  apiBaseUrl?: string;
  upload: 'auto' | 'url' | 'staged';
  pollMs: number;
  pollTimeoutMs: number;
}

export function shopifyDestination(job: Job, secret: string, deps: ShopifyDestinationDeps): Destination {
  const input = job.input as unknown as ShopifyJobInput;
  const { token } = JSON.parse(secret) as ShopifySecret;
  const shop: ShopifyShop = { endpoint: `${deps.apiBaseUrl ?? `https://${input.shop}`}/admin/api/${deps.apiVersion}/graphql.json`, token };
  const linkBase = deps.upload === 'staged' ? null : deps.upload === 'url' ? (deps.publicBaseUrl ?? null) : publicBase(deps.publicBaseUrl);
  const productId = input.product_id;

  return {
    prepare: async (signal) => {
      await deps.client.checkShop(shop, signal);
      if (productId && !(await deps.client.productExists(shop, productId, signal))) {
        throw new DestinationRefused(`the shop has no product ${productId} (or the token may not read products)`);
      }
    },
    send: async (media, signal) => {
      const meta = exportedMetadata(media);
      const contentType = shopifyContentType(media);
      if (productId && contentType === 'FILE') {
        throw new ItemFailed(`media item ${media.id} is a ${media.kind}: only images and videos can be attached to a product`);
      }
      // Videos always go through a staged upload: Shopify takes external URLs for images and files only.
      const source = linkBase && contentType !== 'VIDEO' ? linkBase + signedMediaPath(deps.signer, media, 'original', new Date(Date.now() + SHOPIFY_LINK_SECONDS * 1000)) : await staged(deps, shop, media, meta.filename, contentType, signal);
      const created = await deps.client.fileCreate(shop, { originalSource: source, contentType, alt: meta.altText, filename: meta.filename }, signal);
      const state = await deps.client.waitUntilProcessed(shop, created.id, { pollMs: deps.pollMs, timeoutMs: deps.pollTimeoutMs, signal });
      const remote = { remoteId: created.id, remoteUrl: state.url };
      if (state.status === 'FAILED') throw new ItemFailed(`Shopify could not process the file${state.errors.length ? `: ${state.errors.join('; ')}` : ''}`, remote);
      if (state.status !== 'READY') throw new ItemFailed(`Shopify had not processed the file after ${Math.round(deps.pollTimeoutMs / 1000)} s (status ${state.status})`, remote);
      if (productId) {
        try {
          await deps.client.attachToProduct(shop, created.id, productId, signal);
        } catch (error) {
          if (error instanceof ItemFailed) throw new ItemFailed(`uploaded, but ${error.message}`, remote);
          throw error;
        }
      }
      return remote;
    },
  };
}

async function staged(deps: ShopifyDestinationDeps, shop: ShopifyShop, media: MediaItem, filename: string, resource: ShopifyContentType, signal: AbortSignal): Promise<string> {
  const body = await readFile(deps.blobs, media);
  const target = await deps.client.stagedUpload(shop, { filename, mimeType: media.mime, fileSize: body.length, resource }, signal);
  await deps.client.upload(target, { body, filename, mimeType: media.mime }, signal);
  return target.resourceUrl;
}

function shopifyContentType(media: Pick<MediaItem, 'kind'>): ShopifyContentType {
  if (media.kind === 'image') return 'IMAGE';
  if (media.kind === 'video') return 'VIDEO';
  return 'FILE';
}

// Names that never reach the public internet: the shop could not fetch a link under them.
const LOCAL_SUFFIXES = ['.local', '.internal', '.lan', '.home.arpa', '.test', '.invalid', '.example', '.localhost', '.corp', '.intranet'];

/**
 * PUBLIC_BASE_URL when Shopify could fetch a link under it: https, and a host that is not a
 * loopback, private or reserved address, nor a local name (localhost, one label, .local, .internal
 * and the like). Judged without DNS; SHOPIFY_UPLOAD=staged forces staged uploads anyway.
 */
export function publicBase(base: string | undefined): string | null {
  if (!base || !URL.canParse(base)) return null;
  const url = new URL(base);
  if (url.protocol !== 'https:') return null;
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  if (hostRefusal(host, false)) return null;
  if (!host.startsWith('[') && !/^[\d.]+$/.test(host)) {
    if (!host.includes('.') || LOCAL_SUFFIXES.some((suffix) => host.endsWith(suffix))) return null;
  }
  return base.replace(/\/$/, '');
}
