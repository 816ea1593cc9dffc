// The API credit ledger: one table every paid feature writes into (generation, wiki queries,
// pipelines ...). Balances are sums of entries; a spend locks the account's row so two concurrent
// spends cannot both pass a balance check, and an idempotency key makes a retried spend count once.
import { z } from 'zod';
import { Prisma } from '../../generated/prisma/client.js';
import type { CreditEntry } from '../../generated/prisma/client.js';
import type { Database } from '../../platform/database/database.js';
import { AppError } from '../../platform/errors.js';
import { parseInput } from '../../platform/validation.js';
import type { Actor } from '../accounts/actor.js';
import { pageSchema } from './media.input.js';

export class InsufficientCredits extends AppError {
  constructor(needed: number, balance: number) {
    super(`this needs ${needed} credits and the account has ${balance}`, 402, 'INSUFFICIENT_CREDITS');
  }
}

export interface CreditSummary {
  balance: number;
  totalAdded: number;
  totalSpent: number;
  entries: CreditEntry[];
  total: number;
  limit: number;
  offset: number;
}

const entrySchema = z.object({
  amount: z.number().finite().refine((n) => n !== 0, 'expected a non-zero amount'),
  action: z.string().trim().min(1).max(100),
  reference: z.string().max(500).optional(),
  idempotencyKey: z.string().min(1).max(200).optional(),
});

export class CreditsService {
  constructor(private readonly db: Database) {}

  async summary(actor: Actor, page: { limit?: number; offset?: number }): Promise<CreditSummary> {
    const { limit, offset } = parseInput(pageSchema, page);
    const where = { accountId: actor.accountId };
    const [entries, total, added, spent] = await Promise.all([
      this.db.prisma.creditEntry.findMany({ where, orderBy: { id: 'desc' }, take: limit, skip: offset }),
      this.db.prisma.creditEntry.count({ where }),
      this.db.prisma.creditEntry.aggregate({ where: { ...where, amount: { gt: 0 } }, _sum: { amount: true } }),
      this.db.prisma.creditEntry.aggregate({ where: { ...where, amount: { lt: 0 } }, _sum: { amount: true } }),
    ]);
    const totalAdded = Number(added._sum.amount ?? 0);
    const totalSpent = -Number(spent._sum.amount ?? 0);
    return { balance: totalAdded - totalSpent, totalAdded, totalSpent, entries, total, limit, offset };
  }

  /**
   * Adds (amount > 0) or spends (amount < 0) credits. A spend beyond the balance throws 402 and
   * writes nothing; the same idempotency key returns the entry written the first time.
   */
  async record(accountId: number, input: z.input<typeof entrySchema>): Promise<CreditEntry> {
    const entry = parseInput(entrySchema, input);
    if (entry.idempotencyKey) {
      const earlier = await this.db.prisma.creditEntry.findUnique({ where: { accountId_idempotencyKey: { accountId, idempotencyKey: entry.idempotencyKey } } });
      if (earlier) return earlier;
    }
    return this.db.prisma.$transaction(async (tx) => {
      // Serialises writers of one account's ledger.
      await tx.$queryRaw`SELECT id FROM "Account" WHERE id = ${accountId} FOR UPDATE`;
      if (entry.amount < 0) {
        const { _sum } = await tx.creditEntry.aggregate({ where: { accountId }, _sum: { amount: true } });
        const balance = Number(_sum.amount ?? 0);
        if (balance + entry.amount < 0) throw new InsufficientCredits(-entry.amount, balance);
      }
      return tx.creditEntry.create({
        data: { accountId, amount: new Prisma.Decimal(entry.amount), action: entry.action, reference: entry.reference, idempotencyKey: entry.idempotencyKey },
      });
    });
  }
}
