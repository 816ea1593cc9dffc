// The operator's tier (src/modules/quota/quota.settings.ts): the first account's, without the
// standard tier's 20 requests a day; TIERS may redefine it, and the other tiers stay as configured.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { OPERATOR_TIER, withOperatorTier } from '../../src/modules/quota/index.js';

describe('withOperatorTier', () => {
  it('adds the operator tier beside the specification tiers, which keep their limits', () => {
    const tiers = withOperatorTier(loadConfig({}).tiers);
    expect(tiers.standard).toEqual({ daily: 20, perMinute: 60 });
    expect(tiers[OPERATOR_TIER]!.daily).toBeGreaterThanOrEqual(1_000_000);
  });

  it('keeps an operator tier that TIERS defines', () => {
    const tiers = withOperatorTier(loadConfig({ TIERS: JSON.stringify({ operator: { daily: 50, perMinute: 5 } }) }).tiers);
    expect(tiers[OPERATOR_TIER]).toEqual({ daily: 50, perMinute: 5 });
  });
});
