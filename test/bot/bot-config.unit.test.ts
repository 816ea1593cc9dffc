// The TELEGRAM_* settings: the bot is off without a token, a token must look like one, the webhook
// mode needs its secret, and the defaults are docs/configuration.md's.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { TEST_BOT_TOKEN } from '../fixtures/telegram/fake-bot-api.js';

describe('Telegram bot settings', () => {
  it('is off without a token, and takes the documented defaults with one', () => {
    expect(loadConfig({}).telegram).toBeUndefined();
    expect(loadConfig({ TELEGRAM_BOT_TOKEN: '  ' }).telegram).toBeUndefined();
    expect(loadConfig({ TELEGRAM_BOT_TOKEN: TEST_BOT_TOKEN }).telegram).toEqual({
      token: TEST_BOT_TOKEN,
      mode: 'polling',
      webhookSecret: undefined,
      apiRoot: 'https://api.telegram.org',
      linkCodeMinutes: 10,
      concurrency: 4,
      noticePollMs: 2000,
    });
  });

  it('refuses a malformed token, an unknown mode, and a webhook without its secret, naming the variable', () => {
    expect(() => loadConfig({ TELEGRAM_BOT_TOKEN: 'not-a-token' })).toThrow(/TELEGRAM_BOT_TOKEN must look like/);
    expect(() => loadConfig({ TELEGRAM_BOT_TOKEN: TEST_BOT_TOKEN, TELEGRAM_MODE: 'push' })).toThrow(/TELEGRAM_MODE must be one of polling, webhook, none/);
    expect(() => loadConfig({ TELEGRAM_BOT_TOKEN: TEST_BOT_TOKEN, TELEGRAM_MODE: 'webhook' })).toThrow(/TELEGRAM_WEBHOOK_SECRET: required when TELEGRAM_MODE is webhook/);
    expect(() => loadConfig({ TELEGRAM_BOT_TOKEN: TEST_BOT_TOKEN, TELEGRAM_MODE: 'webhook', TELEGRAM_WEBHOOK_SECRET: 'short' })).toThrow(/TELEGRAM_WEBHOOK_SECRET must be 16 to 256/);
    const hooked = loadConfig({ TELEGRAM_BOT_TOKEN: TEST_BOT_TOKEN, TELEGRAM_MODE: 'webhook', TELEGRAM_WEBHOOK_SECRET: 'a-secret-of-enough-length', TELEGRAM_API_ROOT: 'http://127.0.0.1:8081/' });
    expect(hooked.telegram).toMatchObject({ mode: 'webhook', webhookSecret: 'a-secret-of-enough-length', apiRoot: 'http://127.0.0.1:8081' });
  });

  it('never shows the token in a configuration error', () => {
    try {
      loadConfig({ TELEGRAM_BOT_TOKEN: TEST_BOT_TOKEN, TELEGRAM_MODE: 'webhook' });
    } catch (error) {
      expect(String(error)).not.toContain(TEST_BOT_TOKEN);
      return;
    }
    throw new Error('expected a refusal');
  });
});
