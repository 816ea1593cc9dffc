// Style presets (spec "Economy": GET /api/economy/styles, POST /api/economy/styles/{slug}/unlock):
// the generate route's four free presets, and premium presets (STYLES_PREMIUM) that an account
// unlocks once with coins. An unlock is one ledger transfer (account -> fees) whose id is derived
// from the account and the slug, so the ledger itself is the record of what is unlocked: unlocking
// again, or ten times at once, charges once. The generate route asks requireUsable().
import { z } from 'zod';
import type { Database } from '../../platform/database/database.js';
import { AppError, ErrorCode, InvalidInput, NotFound } from '../../platform/errors.js';
import type { Actor } from '../accounts/index.js';
import { requireKey } from '../access/index.js';
import { fromMinor, LedgerAction, toMinor, type LedgerService } from '../ledger/index.js';
import { ECONOMY_READ, ECONOMY_SPEND } from './economy.access.js';
import { styleSlugSchema } from './economy.input.js';
import { FREE_STYLES, styleName } from './economy.settings.js';
import { parseInput } from '../../platform/validation.js';

/** A slug as the unlock route (`slug`) and the generate route (`style`) name it; built once, not per request (zod compiles each schema on its first parse). */
const SLUG_INPUT: Record<'slug' | 'style', z.ZodType<Record<string, string>>> = { slug: z.object({ slug: styleSlugSchema }), style: z.object({ style: styleSlugSchema }) };

export interface StylePreset {
  slug: string;
  name: string;
  premium: boolean;
  /** Coins to unlock it (0 for the free ones). */
  priceCoins: number;
}

export interface StyleView extends StylePreset {
  /** Whether the caller may use it (free ones always). */
  unlocked: boolean;
}

export interface UnlockResult {
  style: StyleView;
  /** Coins charged by this call (0 when free or unlocked before). */
  charged: number;
  alreadyUnlocked: boolean;
  /** The caller's spendable coins after. */
  newBalance: number;
  /** The caller's coins held by pending transfers, beside newBalance. */
  held: number;
}

/** A premium preset the caller has not unlocked: 402, code STYLE_LOCKED. */
export class StyleLocked extends AppError {
  constructor(readonly style: StylePreset) {
    super(
      `style ${style.slug} is a premium preset: unlock it once for ${style.priceCoins} coins with POST /api/economy/styles/${style.slug}/unlock (GraphQL unlockStyle)`,
      402,
      ErrorCode.StyleLocked,
      'style',
    );
  }
}

/** The ledger transfer of an account's unlock of a preset: its id is the idempotency key. */
export const unlockTransferId = (accountId: number, slug: string) => `style:${accountId}:${slug}`;

export class StylesService {
  private readonly presets: StylePreset[];
  private readonly bySlug: Map<string, StylePreset>;

  constructor(
    private readonly db: Database,
    private readonly ledger: LedgerService,
    premium: Readonly<Record<string, number>>,
  ) {
    this.presets = [
      ...FREE_STYLES.map((slug) => ({ slug, name: styleName(slug), premium: false, priceCoins: 0 })),
      ...Object.entries(premium).map(([slug, price]) => ({ slug, name: styleName(slug), premium: true, priceCoins: price })),
    ];
    this.bySlug = new Map(this.presets.map((p) => [p.slug, p]));
  }

  /** Every preset, free ones first, with whether the caller unlocked it. */
  async list(actor: Actor | null): Promise<StyleView[]> {
    const checked = requireKey(actor, ECONOMY_READ);
    const unlocked = await this.unlockedOf(checked.accountId, this.presets.filter((p) => p.premium).map((p) => p.slug));
    return this.presets.map((p) => ({ ...p, unlocked: !p.premium || unlocked.has(p.slug) }));
  }

  /**
   * Unlocks a preset for the caller: a premium one is charged its price once (into fees); again, or
   * a free one, answers success with nothing charged. 404 for an unknown slug, 402 without the coins.
   */
  async unlock(actor: Actor | null, slug: string): Promise<UnlockResult> {
    const checked = requireKey(actor, ECONOMY_SPEND);
    const preset = this.preset(slug);
    if (!preset) throw new NotFound(`no style preset ${slug.slice(0, 100)}; GET /api/economy/styles lists them`);
    const balance = async () => {
      const { balance: newBalance, held } = await this.ledger.balance(checked.accountId, 'coins');
      return { newBalance, held };
    };
    if (!preset.premium) return { style: { ...preset, unlocked: true }, charged: 0, alreadyUnlocked: true, ...(await balance()) };
    // One statement: the transfer's id is the unlock, so an unlock made before (perhaps at another
    // price) is found by it: a replay charges nothing, and neither does the 409 of another price.
    try {
      const {
        result: { transfers },
        balance: coins,
      } = await this.ledger.applyShowing(
        [
          {
            id: unlockTransferId(checked.accountId, preset.slug),
            currency: 'coins',
            from: { account: checked.accountId },
            to: { system: 'fees' },
            amount: toMinor(preset.priceCoins)!,
            action: LedgerAction.StyleUnlock,
            reference: `style:${preset.slug}`,
          },
        ],
        { accountId: checked.accountId, currency: 'coins' },
      );
      const transfer = transfers[0]!;
      const charged = transfer.replayed ? 0 : fromMinor(transfer.amount);
      return { style: { ...preset, unlocked: true }, charged, alreadyUnlocked: charged === 0, newBalance: coins.balance, held: coins.held };
    } catch (error) {
      // The same id with another amount: unlocked before at a price since changed.
      if (!(error instanceof AppError && error.status === 409)) throw error;
      return { style: { ...preset, unlocked: true }, charged: 0, alreadyUnlocked: true, ...(await balance()) };
    }
  }

  /** Whether the account may use the preset (false for an unknown slug). */
  async isUnlocked(accountId: number, slug: string): Promise<boolean> {
    const preset = this.preset(slug);
    if (!preset) return false;
    return !preset.premium || (await this.unlockedOf(accountId, [preset.slug])).size > 0;
  }

  /**
   * For the generate route: the preset the caller asked for, when it may use it. 400 naming `style`
   * for an unknown slug; 402 STYLE_LOCKED for a premium preset it has not unlocked.
   */
  async requireUsable(actor: Actor, slug: string): Promise<StylePreset> {
    const preset = this.preset(slug, 'style');
    if (!preset) throw new InvalidInput(`style: expected one of ${this.presets.map((p) => p.slug).join(', ')}`, 'style');
    if (preset.premium && !(await this.isUnlocked(actor.accountId, preset.slug))) throw new StyleLocked(preset);
    return preset;
  }

  /** The preset of a slug; a malformed one is a 400 naming `field` (slug in the unlock route, style in generation). */
  private preset(slug: string, field: 'slug' | 'style' = 'slug'): StylePreset | undefined {
    const normalised = parseInput(SLUG_INPUT[field], { [field]: slug })[field]!;
    return this.bySlug.get(normalised);
  }

  /** The slugs among these that the account unlocked: primary-key lookups of their transfers. */
  private async unlockedOf(accountId: number, slugs: string[]): Promise<Set<string>> {
    if (slugs.length === 0) return new Set();
    const ids = slugs.map((slug) => unlockTransferId(accountId, slug));
    const rows = await this.db.query<{ id: string }>(`SELECT "id" FROM "LedgerTransfer" WHERE "id" = ANY($1::text[])`, [ids]);
    const found = new Set(rows.map((r) => r.id));
    return new Set(slugs.filter((slug) => found.has(unlockTransferId(accountId, slug))));
  }
}
