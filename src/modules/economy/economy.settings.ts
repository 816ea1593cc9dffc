// What configuration says about the economy (src/config.ts reads it): the bridge's rate and credit
// partner, and the style presets. A leaf module (zod and the platform's input helpers only): the
// configuration reads it without loading the ledger or the services.
import { z } from 'zod';
import { hasAtMost4Decimals } from '../../platform/validation.js';

/** The generate route's own presets (spec "Generation"): free for everyone. */
export const FREE_STYLES = ['professional', 'cinematic', 'minimalist', 'cyberpunk'] as const;
export type FreeStyle = (typeof FREE_STYLES)[number];

/** Premium presets and their prices in coins when STYLES_PREMIUM is unset (ours; the spec names none). */
export const DEFAULT_PREMIUM_STYLES: Readonly<Record<string, number>> = { noir: 5, watercolor: 5, 'vintage-film': 8, anime: 10 };

/** The spec's documented rate: 10 coins make 1 credit. */
export const DEFAULT_COINS_PER_CREDIT = 10;
export const MAX_COINS_PER_CREDIT = 1_000_000;
export const MAX_STYLE_PRICE = 1_000_000;
export const DEFAULT_PARTNER_TIMEOUT_MS = 10_000;

export const STYLE_SLUG = /^[a-z0-9][a-z0-9-]{0,39}$/;

export type BridgePartnerConfig =
  | { kind: 'local' }
  | {
      kind: 'http';
      /** Where conversions are POSTed. */
      url: string;
      /** Shared secret of the HMAC-SHA256 signature. */
      secret: string;
      /** Deadline of one delivery attempt. */
      timeoutMs: number;
    };

export interface EconomyConfig {
  /** Coins that make one API credit. */
  coinsPerCredit: number;
  partner: BridgePartnerConfig;
  /** Premium style presets by slug, with their price in coins. */
  premiumStyles: Readonly<Record<string, number>>;
}

export const DEFAULT_ECONOMY: EconomyConfig = { coinsPerCredit: DEFAULT_COINS_PER_CREDIT, partner: { kind: 'local' }, premiumStyles: DEFAULT_PREMIUM_STYLES };

/** BRIDGE_COINS_PER_CREDIT. */
export const coinsPerCreditSchema = z.coerce
  .number({ error: 'BRIDGE_COINS_PER_CREDIT must be a number' })
  .positive('BRIDGE_COINS_PER_CREDIT must be above 0')
  .max(MAX_COINS_PER_CREDIT, `BRIDGE_COINS_PER_CREDIT must be at most ${MAX_COINS_PER_CREDIT}`)
  .refine(hasAtMost4Decimals, 'BRIDGE_COINS_PER_CREDIT may have at most 4 decimals');

const EXAMPLE = '{"noir": 5, "watercolor": 8}';

/** STYLES_PREMIUM: a JSON object of slug -> price in coins; it replaces the default set ({} for none). */
export const premiumStylesSchema = z.string().transform((text, ctx) => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: `STYLES_PREMIUM must be JSON like ${EXAMPLE}: ${(error as Error).message}` });
    return z.NEVER;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    ctx.addIssue({ code: 'custom', message: `STYLES_PREMIUM must be a JSON object like ${EXAMPLE}` });
    return z.NEVER;
  }
  const styles: Record<string, number> = {};
  for (const [slug, price] of Object.entries(parsed)) {
    const problem = !STYLE_SLUG.test(slug)
      ? 'a slug is 1 to 40 of a-z, 0-9 and -, starting with a letter or digit'
      : (FREE_STYLES as readonly string[]).includes(slug)
        ? 'is a free preset of the generate route'
        : typeof price !== 'number' || !(price > 0) || price > MAX_STYLE_PRICE
          ? `expected a price in coins above 0 and at most ${MAX_STYLE_PRICE}`
          : !hasAtMost4Decimals(price)
            ? 'expected a price with at most 4 decimals'
            : undefined;
    if (problem) {
      ctx.addIssue({ code: 'custom', message: `STYLES_PREMIUM must be JSON like ${EXAMPLE}: ${slug}: ${problem}` });
      return z.NEVER;
    }
    styles[slug] = price as number;
  }
  return styles;
});

/** The display name of a preset: its slug in title case (`vintage-film` -> `Vintage Film`). */
export function styleName(slug: string): string {
  return slug
    .split('-')
    .filter(Boolean)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(' ');
}

/** The BRIDGE_* variables and STYLES_PREMIUM, spread into the configuration's schema. */
export const economyEnvShape = {
  BRIDGE_COINS_PER_CREDIT: coinsPerCreditSchema.default(DEFAULT_COINS_PER_CREDIT).describe('coins that make one API credit in `POST /api/economy/bridge/convert` (above 0, at most 4 decimals) ([Economy](economy.md#economy-bridge-referral-styles))'),
  BRIDGE_PARTNER: z.enum(['local', 'http'], { error: 'BRIDGE_PARTNER must be local or http' }).default('local').describe("where converted credits land: `local` (this service's own credit ledger) or `http` (an external credit partner, below)"),
  BRIDGE_PARTNER_URL: z.string().url('BRIDGE_PARTNER_URL must be an http(s) URL').regex(/^https?:\/\//i, 'BRIDGE_PARTNER_URL must be an http(s) URL').optional().describe('`http` partner: the URL conversions are POSTed to (required with `BRIDGE_PARTNER=http`; use https)'),
  BRIDGE_PARTNER_SECRET: z.string().min(16, 'BRIDGE_PARTNER_SECRET must be at least 16 characters').optional().describe("`http` partner: the shared secret (16+ characters) of the requests' HMAC-SHA256 signature (required with `BRIDGE_PARTNER=http`)"),
  BRIDGE_PARTNER_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(DEFAULT_PARTNER_TIMEOUT_MS).describe('deadline of one request to the `http` partner (then the conversion stays pending and is retried)'),
  STYLES_PREMIUM: premiumStylesSchema.optional().meta({ description: 'premium style presets and their unlock price in coins, as JSON; it replaces the default set (`{}`: none). Slugs are 1 to 40 of `a-z`, `0-9`, `-`, not one of the four free presets', shownDefault: `\`${JSON.stringify(DEFAULT_PREMIUM_STYLES)}\`` }),
};

type EconomyEnv = z.output<z.ZodObject<typeof economyEnvShape>>;

/** The economy's configuration. Throws for an http partner without its URL and secret. */
export function economyConfigFrom(e: EconomyEnv): EconomyConfig {
  if (e.BRIDGE_PARTNER === 'http' && (!e.BRIDGE_PARTNER_URL || !e.BRIDGE_PARTNER_SECRET)) {
    throw new Error('invalid configuration:\n  BRIDGE_PARTNER_URL, BRIDGE_PARTNER_SECRET: both are required when BRIDGE_PARTNER is http');
  }
  return {
    coinsPerCredit: e.BRIDGE_COINS_PER_CREDIT,
    partner:
      e.BRIDGE_PARTNER === 'http'
        ? { kind: 'http', url: e.BRIDGE_PARTNER_URL!, secret: e.BRIDGE_PARTNER_SECRET!, timeoutMs: e.BRIDGE_PARTNER_TIMEOUT_MS }
        : { kind: 'local' },
    premiumStyles: e.STYLES_PREMIUM ?? DEFAULT_PREMIUM_STYLES,
  };
}
