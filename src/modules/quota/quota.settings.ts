// What configuration says about quotas (src/config.ts reads it): the tiers and their limits. A leaf
// file (zod only), so the configuration reads it without loading the quota services.
import { z } from 'zod';

const tierLimits = z.object({
  daily: z.number().int().positive(),
  perMinute: z.number().int().positive(),
});
export type TierLimits = z.infer<typeof tierLimits>;

/** Standard is the spec's tier; the others are our defaults (the spec leaves them open). */
export const DEFAULT_TIERS: Record<string, TierLimits> = {
  standard: { daily: 20, perMinute: 60 },
  pro: { daily: 5_000, perMinute: 300 },
  enterprise: { daily: 100_000, perMinute: 1_200 },
};

const jsonTiers = z.string().transform((text, ctx) => {
  try {
    const parsed = z.record(z.string().regex(/^[a-z][a-z0-9_-]*$/), tierLimits).parse(JSON.parse(text));
    return { ...DEFAULT_TIERS, ...parsed };
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: `TIERS must be JSON like {"standard":{"daily":20,"perMinute":60}}: ${(error as Error).message}` });
    return z.NEVER;
  }
});

/**
 * The tier of the account the first start creates: the operator's own, so a first hour of trying
 * the service never meets the standard tier's 20 requests a day. Other accounts keep the
 * specification's tiers; TIERS may redefine it like any other.
 */
export const OPERATOR_TIER = 'operator';
const OPERATOR_LIMITS: TierLimits = { daily: 1_000_000, perMinute: 1_200 };

/** The configured tiers with the operator's added unless they define it. */
export const withOperatorTier = (tiers: Record<string, TierLimits>): Record<string, TierLimits> => ({ [OPERATOR_TIER]: OPERATOR_LIMITS, ...tiers });

/** TIERS, spread into the configuration's schema. */
export const quotaEnvShape = {
  TIERS: jsonTiers.optional().meta({ description: 'JSON object of quota tiers, merged over the defaults: `{"standard":{"daily":1000,"perMinute":120}}`', shownDefault: 'see below' }),
};

type QuotaEnv = z.output<z.ZodObject<typeof quotaEnvShape>>;

/** Every tier's limits: the defaults, with the tiers TIERS names added or replaced. */
export function tiersFrom(e: QuotaEnv): Record<string, TierLimits> {
  return e.TIERS ?? DEFAULT_TIERS;
}
