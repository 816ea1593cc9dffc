// Account administration (create, suspend, activate, rotate the master key, set the tier) and the
// first-start bootstrap. Called only behind the admin token.
import { z } from 'zod';
import type { Database } from '../../platform/database/database.js';
import { Conflict, InvalidInput, NotFound } from '../../platform/errors.js';
import { isUniqueViolation, uniqueViolationField } from '../../platform/database/errors.js';
import { modelRows, type ModelRows } from '../../platform/database/model-rows.js';
import type { Account, Prisma } from '../../generated/prisma/client.js';
import type { Actor } from './actor.js';
import { accountPolicy } from './accounts.access.js';
import { generateKey } from './api-key.js';
import type { KeyWatch } from './key-watch.js';
import { parseInput } from '../../platform/validation.js';

const handleSchema = z
  .string({ error: (issue) => (issue.input === undefined ? 'handle is required' : 'expected a string') })
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9][a-z0-9_-]{1,31}$/, 'expected 2 to 32 characters: letters, digits, _ or -, starting with a letter or digit');

export const ACCOUNT_STATUSES = ['active', 'inactive', 'suspended'] as const;
export type AccountStatusValue = (typeof ACCOUNT_STATUSES)[number];

/** A tier's name; which tiers there are is configuration (TIERS), checked by the service. */
const tierSchema = z.string({ error: (issue) => (issue.input === undefined ? 'tier is required' : 'expected a string') }).trim().min(1, 'tier is required');

const handleInput = z.object({ handle: handleSchema });

/** A referral code (Account.referralCode, shown by GET /api/economy/referral): case and surrounding spaces do not matter. */
const referralCodeSchema = z
  .string({ error: 'expected a string' })
  .trim()
  .toUpperCase()
  .regex(/^[A-Z0-9]{4,32}$/, 'expected a referral code (letters and digits, as GET /api/economy/referral shows it)');

export const createSchema = z.object({
  handle: handleSchema,
  email: z.email('expected an email address').optional(),
  tier: tierSchema.optional(),
  referred_by: referralCodeSchema.optional().describe("the referrer's referral code: the referrer earns a commission on this account's rewards"),
});

/** POST /api/admin/accounts/:handle/tier, adminSetAccountTier. */
export const tierInputSchema = z.object({ tier: tierSchema });

const statusInput = z.object({ status: z.enum(ACCOUNT_STATUSES, { error: `expected one of ${ACCOUNT_STATUSES.join(', ')}` }) });

export interface AccountWithKey {
  account: Account;
  apiKey: string;
}

export class AccountsService {
  /** The schemas above, with the tiers configuration allows (TIERS). */
  private readonly createInput;
  private readonly tierInput;
  private readonly rows: ModelRows<Account>;

  constructor(
    private readonly db: Database,
    tierNames: readonly string[],
    private readonly keyWatch: KeyWatch,
  ) {
    this.rows = modelRows<Account>(db.prisma, 'Account');
    const configuredTier = tierSchema.refine((tier) => tierNames.includes(tier), `tier must be one of ${tierNames.join(', ')}`);
    this.createInput = createSchema.extend({ tier: configuredTier.default('standard') });
    this.tierInput = tierInputSchema.extend({ tier: configuredTier });
  }

  /**
   * Public handles of accounts by id, in the order asked (null for a missing one): the handle is what
   * other accounts see of an account (who added a shared stock item, who owns a shared list).
   */
  async handlesOf(ids: readonly number[]): Promise<Array<string | null>> {
    // On the driver, not through Prisma: lists read handles per page, and Prisma compiles each read again (bench/RESULTS.md, query cost).
    const accounts = await this.db.query<{ id: number; handle: string }>(`SELECT "id", "handle" FROM "Account" WHERE "id" = ANY($1::int[])`, [[...ids]]);
    const byId = new Map(accounts.map((a) => [a.id, a.handle]));
    return ids.map((id) => byId.get(id) ?? null);
  }

  /** The caller's own account (any key), or any account for the operator, with GraphQL's selection. */
  async viewer(actor: Actor | null, query: Pick<Prisma.AccountFindFirstArgs, 'select' | 'include'> = {}): Promise<Account> {
    const checked = accountPolicy.checkKey(actor);
    if (!query.select && !query.include) {
      // The account's own fields and nothing related (a list under the viewer, its sub-keys): one
      // statement on the driver (a Prisma read costs a list more CPU than the rest of it,
      // bench/RESULTS.md). The policy's filter for a key is its own account: the id asked for.
      return accountPolicy.findOne(checked, checked.accountId, async ({ id }) => {
        const [row] = await this.db.query(`SELECT ${this.rows.columns} FROM "Account" WHERE "id" = $1`, [id]);
        return row ? this.rows.row(row) : null;
      });
    }
    return accountPolicy.findOne(checked, checked.accountId, (where) => this.db.prisma.account.findFirst({ ...query, where }) as Promise<Account | null>);
  }

  /** A new account with its master key; `referredBy` is the referrer's referral code (400 naming referred_by when no account has it). */
  async create(input: { handle: string; email?: string | null; tier?: string | null; referredBy?: string | null }): Promise<AccountWithKey> {
    const data = parseInput(this.createInput, { handle: input.handle, email: input.email ?? undefined, tier: input.tier ?? undefined, referred_by: input.referredBy ?? undefined });
    let referredById: number | undefined;
    if (data.referred_by !== undefined) {
      const referrer = await this.db.prisma.account.findUnique({ where: { referralCode: data.referred_by }, select: { id: true } });
      if (!referrer) throw new InvalidInput(`referred_by: no account has the referral code ${data.referred_by}`, 'referred_by');
      referredById = referrer.id;
    }
    const key = generateKey('master');
    try {
      const account = await this.db.prisma.account.create({
        data: {
          handle: data.handle,
          email: data.email,
          tier: data.tier,
          referredById,
          apiKeys: { create: { kind: 'master', prefix: key.prefix, secretHash: key.secretHash, scopes: [] } },
        },
      });
      return { account, apiKey: key.key };
    } catch (error) {
      if (isUniqueViolation(error)) {
        const field = uniqueViolationField(error) ?? 'handle';
        throw new Conflict(`an account with this ${field} already exists`, field);
      }
      throw error;
    }
  }

  async setStatus(handle: string, status: AccountStatusValue): Promise<Account> {
    const valid = parseInput(statusInput, { status });
    const account = await this.byHandle(handle);
    const updated = await this.db.prisma.account.update({ where: { id: account.id }, data: { status: valid.status } });
    // Subscriptions of a suspended or deactivated account end (key-watch.ts).
    this.keyWatch.keysChanged(account.id);
    return updated;
  }

  async setTier(handle: string, tier: string): Promise<Account> {
    const valid = parseInput(this.tierInput, { tier });
    const account = await this.byHandle(handle);
    return this.db.prisma.account.update({ where: { id: account.id }, data: { tier: valid.tier } });
  }

  /** Replaces the master key; the old one stops working on the next request. */
  async rotateKey(handle: string): Promise<AccountWithKey> {
    const account = await this.byHandle(handle);
    const key = generateKey('master');
    await this.db.prisma.$transaction([
      this.db.prisma.apiKey.updateMany({
        where: { accountId: account.id, kind: 'master', revokedAt: null },
        data: { revokedAt: new Date() },
      }),
      this.db.prisma.apiKey.create({
        data: { accountId: account.id, kind: 'master', prefix: key.prefix, secretHash: key.secretHash, scopes: [] },
      }),
    ]);
    // Subscriptions opened with the old master key end (key-watch.ts).
    this.keyWatch.keysChanged(account.id);
    return { account, apiKey: key.key };
  }

  async byHandle(handle: string): Promise<Account> {
    const normalised = parseInput(handleInput, { handle }).handle;
    const account = await this.db.prisma.account.findUnique({ where: { handle: normalised } });
    if (!account) throw new NotFound(`no account with handle ${normalised}`);
    return account;
  }

  /** The handle of the active account with this referral code (any case), or null. */
  async referrerHandle(code: string): Promise<string | null> {
    const parsed = referralCodeSchema.safeParse(code);
    if (!parsed.success) return null;
    const referrer = await this.db.prisma.account.findUnique({ where: { referralCode: parsed.data }, select: { handle: true, status: true } });
    return referrer?.status === 'active' ? referrer.handle : null;
  }

  /**
   * First start of an empty database: one account to begin with (the operator's, on `tier`). Returns it with its key, or null
   * when accounts exist. Two processes starting at once race on the unique handle; one wins.
   */
  async bootstrap(handle: string, tier: string): Promise<AccountWithKey | null> {
    if ((await this.db.prisma.account.count()) > 0) return null;
    try {
      return await this.create({ handle, tier });
    } catch (error) {
      if (error instanceof Conflict) return null;
      throw error;
    }
  }
}
