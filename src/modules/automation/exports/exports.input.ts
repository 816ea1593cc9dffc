// What POST /api/automation/export/wordpress and /shopify take (spec "Automation"), under their REST
// names: the only statement of what these inputs may be (the REST route and GraphQL both use it).
import { z } from 'zod';
import { objectId } from '../../../platform/validation.js';

/** Media items one export may carry (the documented maximum). */
export const MAX_EXPORT_ITEMS = 100;

// Credentials go into an HTTP header (Basic auth, X-Shopify-Access-Token): control characters
// (CR, LF, NUL ...) would let a caller write headers of their own, so they are refused.
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f]/;

const required = (field: string, what: string) => z.string({ error: `${field} is required: ${what}` }).min(1, `${field} is required: ${what}`);

export const mediaIdsSchema = z
  .array(objectId, { error: `media_ids is required: an array of 1 to ${MAX_EXPORT_ITEMS} integer media ids` })
  .min(1, `expected 1 to ${MAX_EXPORT_ITEMS} media ids`)
  .max(MAX_EXPORT_ITEMS, `expected at most ${MAX_EXPORT_ITEMS} media ids in one export`)
  .superRefine((ids, ctx) => {
    const seen = new Set<number>();
    for (const id of ids) {
      if (seen.has(id)) return void ctx.addIssue({ code: 'custom', message: `media item ${id} is listed twice` });
      seen.add(id);
    }
  })
  .describe(`ids of the caller's media items, 1 to ${MAX_EXPORT_ITEMS}, each once`);

const WP_URL_WHAT = 'the https:// address of the WordPress site (its REST API is at <wp_url>/wp-json/)';

export const wordpressExportSchema = z.object({
  wp_url: required('wp_url', WP_URL_WHAT)
    .trim()
    .max(2048, 'expected at most 2048 characters')
    .refine((value) => /^https?:\/\//i.test(value) && URL.canParse(value), 'expected an absolute https:// URL')
    .describe(WP_URL_WHAT),
  wp_user: required('wp_user', 'the WordPress user name the application password belongs to')
    .max(200, 'expected at most 200 characters')
    .refine((value) => !CONTROL.test(value), 'control characters are not allowed')
    .refine((value) => !value.includes(':'), 'a user name cannot contain ":" (Basic authentication separates the name from the password with it)'),
  wp_password: required('wp_password', "an application password of that user (Users > Profile > Application Passwords); it is used for this export only and never stored in the clear")
    .max(256, 'expected at most 256 characters')
    .refine((value) => !CONTROL.test(value), 'control characters are not allowed')
    .describe('an application password of that user; used for this export only'),
  media_ids: mediaIdsSchema,
}).describe('POST /api/automation/export/wordpress');

export const SHOP_DOMAIN = /^[a-z0-9][a-z0-9-]{0,62}\.myshopify\.com$/;
const PRODUCT_GID = /^gid:\/\/shopify\/Product\/[1-9]\d{0,19}$/;
/** A product as text: its gid, or its number. */
const PRODUCT_ID = 'expected a product id: a positive number or gid://shopify/Product/<number>';
const PRODUCT_TEXT = /^(gid:\/\/shopify\/Product\/)?[1-9]\d{0,19}$/;

export const shopifyExportSchema = z.object({
  shop: required('shop', "the shop's myshopify.com domain, like my-shop.myshopify.com")
    .trim()
    .toLowerCase()
    .refine((value) => SHOP_DOMAIN.test(value), "expected the shop's myshopify.com domain, like my-shop.myshopify.com (no https://, no path)")
    .describe("the shop's myshopify.com domain"),
  access_token: required('access_token', 'an Admin API access token of the shop (write_files; write_products to attach to a product)')
    .max(256, 'expected at most 256 characters')
    .refine((value) => !CONTROL.test(value) && !/\s/.test(value), 'expected a token without spaces or control characters')
    .describe('an Admin API access token; used for this export only'),
  media_ids: mediaIdsSchema,
  product_id: z
    .union([z.int(PRODUCT_ID).positive(PRODUCT_ID), z.string(PRODUCT_ID).trim().regex(PRODUCT_TEXT, PRODUCT_ID)], { error: PRODUCT_ID })
    .optional()
    .transform((value) => (value === undefined ? undefined : PRODUCT_GID.test(String(value)) ? String(value) : `gid://shopify/Product/${value}`))
    .describe('attach the files to this product: its number or gid://shopify/Product/<number>'),
}).describe('POST /api/automation/export/shopify');

export type WordPressExportInput = z.output<typeof wordpressExportSchema>;
export type ShopifyExportInput = z.output<typeof shopifyExportSchema>;
