// Account administration (create, suspend, activate, rotate the master key, set the tier) and the
// first-start bootstrap. Called only behind the admin token.
import { z } from 'zod';
import type { Database } from '../../platform/database/database.js';
import { Conflict, InvalidInput, NotFound } from '../../platform/errors.js';
import { isUniqueViolation, uniqueViolationField } from '../../platform/database/errors.js';
import type { Account, Prisma } from '../../generated/prisma/client.js';
import type { Actor } from './actor.js';
import { accountPolicy } from './accounts.access.js';
import { generateKey } from './api-key.js';
import { parseInput } from '../../platform/validation.js';

const handleSchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9][a-z0-9_-]{1,31}$/, 'expected 2 to 32 characters: letters, digits, _ or -, starting with a letter or digit');

export const ACCOUNT_STATUSES = ['active', 'inactive', 'suspended'] as const;

export const createSchema = z.object({
  handle: handleSchema,
  email: z.email('expected an email address').optional(),
  tier: z.string().optional(),
});

export type AccountStatusValue = 'active' | 'inactive' | 'suspended';

export interface AccountWithKey {
  account: Account;
  apiKey: string;
}

export class AccountsService {
  constructor(
    private readonly db: Database,
    private readonly tierNames: readonly string[],
  ) {}

  /**
   * Public handles of accounts by id, in the order asked (null for a missing one): the handle is what
   * other accounts see of an account (who added a shared stock item, who owns a shared list).
   */
  async handlesOf(ids: readonly number[]): Promise<Array<string | null>> {
    const accounts = await this.db.prisma.account.findMany({ where: { id: { in: [...ids] } }, select: { id: true, handle: true } });
    const byId = new Map(accounts.map((a) => [a.id, a.handle]));
    return ids.map((id) => byId.get(id) ?? null);
  }

  /** The caller's own account (any key), or any account for the operator, with GraphQL's selection. */
  async viewer(actor: Actor | null, query: Pick<Prisma.AccountFindFirstArgs, 'select' | 'include'> = {}): Promise<Account> {
    const checked = accountPolicy.checkKey(actor);
    return accountPolicy.findOne(checked, checked.accountId, (where) => this.db.prisma.account.findFirst({ ...query, where }) as Promise<Account | null>);
  }

  async create(input: { handle: string; email?: string | null; tier?: string | null }): Promise<AccountWithKey> {
    const data = parseInput(createSchema, { handle: input.handle, email: input.email ?? undefined, tier: input.tier ?? undefined });
    const tier = this.checkTier(data.tier ?? 'standard');
    const key = generateKey('master');
    try {
      const account = await this.db.prisma.account.create({
        data: {
          handle: data.handle,
          email: data.email,
          tier,
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
    const account = await this.byHandle(handle);
    return this.db.prisma.account.update({ where: { id: account.id }, data: { status } });
  }

  async setTier(handle: string, tier: string): Promise<Account> {
    const account = await this.byHandle(handle);
    return this.db.prisma.account.update({ where: { id: account.id }, data: { tier: this.checkTier(tier) } });
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
    return { account, apiKey: key.key };
  }

  async byHandle(handle: string): Promise<Account> {
    const normalised = parseInput(z.object({ handle: handleSchema }), { handle }).handle;
    const account = await this.db.prisma.account.findUnique({ where: { handle: normalised } });
    if (!account) throw new NotFound(`no account with handle ${normalised}`);
    return account;
  }

  /**
   * First start of an empty database: one account to begin with. Returns it with its key, or null
   * when accounts exist. Two processes starting at once race on the unique handle; one wins.
   */
  async bootstrap(handle: string): Promise<AccountWithKey | null> {
    if ((await this.db.prisma.account.count()) > 0) return null;
    try {
      return await this.create({ handle });
    } catch (error) {
      if (error instanceof Conflict) return null;
      throw error;
    }
  }

  private checkTier(tier: string): string {
    if (!this.tierNames.includes(tier)) {
      throw new InvalidInput(`tier must be one of ${this.tierNames.join(', ')}`, 'tier');
    }
    return tier;
  }
}
