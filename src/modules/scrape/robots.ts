// robots.txt per origin (RFC 9309): fetched once per job and origin through the safe fetcher.
// 4xx means no rules; a 5xx or an unreachable robots.txt means "disallow everything" for now,
// as the RFC asks. Crawl-delay raises the per-host delay.
import robotsParserModule from 'robots-parser';
import { FetchRefused, type SafeFetcher } from '../../platform/http/safe-fetch.js';

interface Robot {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getCrawlDelay(ua?: string): number | undefined;
}
// The package is CommonJS with `module.exports = function`; its typings describe it as a namespace.
const robotsParser = robotsParserModule as unknown as (url: string, contents: string) => Robot;
type Rules = { robot: Robot | null; allowAll: boolean; disallowAll: boolean; reason?: string };

export class RobotsRules {
  private readonly byOrigin = new Map<string, Promise<Rules>>();

  constructor(
    private readonly fetcher: SafeFetcher,
    private readonly userAgent: string,
    private readonly enabled: boolean,
  ) {}

  /** Why everything on the URL's origin is disallowed, when robots.txt could not be read. */
  async unreadableReason(url: string): Promise<string | undefined> {
    return this.enabled ? (await this.rulesFor(new URL(url).origin)).reason : undefined;
  }

  async isAllowed(url: string): Promise<boolean> {
    if (!this.enabled) return true;
    const rules = await this.rulesFor(new URL(url).origin);
    if (rules.allowAll) return true;
    if (rules.disallowAll) return false;
    return rules.robot!.isAllowed(url, this.userAgent) !== false;
  }

  /** Seconds asked by Crawl-delay for this user agent, if any. */
  async crawlDelaySeconds(url: string): Promise<number | undefined> {
    if (!this.enabled) return undefined;
    return (await this.rulesFor(new URL(url).origin)).robot?.getCrawlDelay(this.userAgent);
  }

  private rulesFor(origin: string): Promise<Rules> {
    let rules = this.byOrigin.get(origin);
    if (!rules) {
      rules = this.load(origin);
      this.byOrigin.set(origin, rules);
    }
    return rules;
  }

  private async load(origin: string): Promise<Rules> {
    const robotsUrl = `${origin}/robots.txt`;
    try {
      const response = await this.fetcher.fetch(robotsUrl, { maxBytes: 512 * 1024, timeoutMs: 10_000 });
      if (response.status >= 400 && response.status < 500) return { robot: null, allowAll: true, disallowAll: false };
      if (response.status >= 500) return { robot: null, allowAll: false, disallowAll: true };
      return { robot: robotsParser(robotsUrl, response.body.toString('utf8')), allowAll: false, disallowAll: false };
    } catch (error) {
      // An address we may not fetch at all: say that, not "robots.txt disallows".
      if (error instanceof FetchRefused) throw error;
      return { robot: null, allowAll: false, disallowAll: true, reason: (error as Error).message };
    }
  }
}
