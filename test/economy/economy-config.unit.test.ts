// The economy's configuration (src/config.ts): BRIDGE_* and STYLES_PREMIUM, their defaults and the
// messages that stop a start with a bad value; and the partner request signature.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { DEFAULT_PREMIUM_STYLES, signPartnerRequest } from '../../src/modules/economy/index.js';

describe('economy configuration', () => {
  it('defaults: 10 coins per credit, the local partner, the default premium presets', () => {
    expect(loadConfig({}).economy).toEqual({ coinsPerCredit: 10, partner: { kind: 'local' }, premiumStyles: DEFAULT_PREMIUM_STYLES });
  });

  it('reads the rate, the http partner and the premium presets', () => {
    const config = loadConfig({
      BRIDGE_COINS_PER_CREDIT: '12.5',
      BRIDGE_PARTNER: 'http',
      BRIDGE_PARTNER_URL: 'https://partner.example.com/credits',
      BRIDGE_PARTNER_SECRET: 'a-secret-of-16-chars',
      BRIDGE_PARTNER_TIMEOUT_MS: '2500',
      STYLES_PREMIUM: '{"noir": 5, "vintage-film": 7.25}',
    });
    expect(config.economy).toEqual({
      coinsPerCredit: 12.5,
      partner: { kind: 'http', url: 'https://partner.example.com/credits', secret: 'a-secret-of-16-chars', timeoutMs: 2500 },
      premiumStyles: { noir: 5, 'vintage-film': 7.25 },
    });
    expect(loadConfig({ STYLES_PREMIUM: '{}' }).economy.premiumStyles).toEqual({});
  });

  it('refuses bad values with a message naming the variable', () => {
    const bad: Array<[Record<string, string>, RegExp]> = [
      [{ BRIDGE_COINS_PER_CREDIT: '0' }, /BRIDGE_COINS_PER_CREDIT must be above 0/],
      [{ BRIDGE_COINS_PER_CREDIT: 'ten' }, /BRIDGE_COINS_PER_CREDIT must be a number/],
      [{ BRIDGE_COINS_PER_CREDIT: '1.00001' }, /BRIDGE_COINS_PER_CREDIT may have at most 4 decimals/],
      [{ BRIDGE_PARTNER: 'ftp' }, /BRIDGE_PARTNER must be local or http/],
      [{ BRIDGE_PARTNER: 'http' }, /BRIDGE_PARTNER_URL, BRIDGE_PARTNER_SECRET: both are required when BRIDGE_PARTNER is http/],
      [{ BRIDGE_PARTNER: 'http', BRIDGE_PARTNER_URL: 'https://p.example', BRIDGE_PARTNER_SECRET: 'short' }, /BRIDGE_PARTNER_SECRET must be at least 16 characters/],
      [{ BRIDGE_PARTNER_URL: 'ftp://p.example' }, /BRIDGE_PARTNER_URL must be an http\(s\) URL/],
      [{ STYLES_PREMIUM: 'noir=5' }, /STYLES_PREMIUM must be JSON like/],
      [{ STYLES_PREMIUM: '[1]' }, /STYLES_PREMIUM must be a JSON object/],
      [{ STYLES_PREMIUM: '{"Noir!": 5}' }, /Noir!: a slug is 1 to 40/],
      [{ STYLES_PREMIUM: '{"cinematic": 5}' }, /cinematic: is a free preset/],
      [{ STYLES_PREMIUM: '{"noir": 0}' }, /noir: expected a price in coins above 0/],
      [{ STYLES_PREMIUM: '{"noir": "5"}' }, /noir: expected a price in coins above 0/],
      [{ STYLES_PREMIUM: '{"noir": 0.00001}' }, /noir: expected a price with at most 4 decimals/],
    ];
    for (const [env, message] of bad) expect(() => loadConfig(env), JSON.stringify(env)).toThrow(message);
  });

  it('signs partner requests as hex HMAC-SHA256 of "<timestamp>.<body>"', () => {
    const body = '{"conversion_id":"cv_1"}';
    expect(signPartnerRequest('s3cret-s3cret-s3cret', '1700000000', body)).toBe(createHmac('sha256', 's3cret-s3cret-s3cret').update(`1700000000.${body}`).digest('hex'));
  });
});
