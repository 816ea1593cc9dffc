-- CreateEnum
CREATE TYPE "BridgeConversionStatus" AS ENUM ('pending', 'completed', 'refused', 'failed');

-- AlterTable
ALTER TABLE "Account" ADD COLUMN     "referralCode" TEXT NOT NULL DEFAULT upper(substr(replace((gen_random_uuid())::text, '-'::text, ''::text), 1, 12));

-- CreateTable
CREATE TABLE "BridgeLink" (
    "accountId" INTEGER NOT NULL,
    "partnerAccount" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "BridgeLink_pkey" PRIMARY KEY ("accountId")
);

-- CreateTable
CREATE TABLE "BridgeConversion" (
    "id" TEXT NOT NULL,
    "accountId" INTEGER NOT NULL,
    "partner" TEXT NOT NULL,
    "partnerAccount" TEXT,
    "coinsRequested" BIGINT NOT NULL,
    "coins" BIGINT NOT NULL,
    "credits" BIGINT NOT NULL,
    "rate" DOUBLE PRECISION NOT NULL,
    "status" "BridgeConversionStatus" NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMP(3),
    "lastError" TEXT,
    "partnerReference" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "completedAt" TIMESTAMP(3),

    CONSTRAINT "BridgeConversion_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Account_referralCode_key" ON "Account"("referralCode");

-- CreateIndex
CREATE INDEX "Account_referredById_idx" ON "Account"("referredById");

-- AddForeignKey
ALTER TABLE "BridgeLink" ADD CONSTRAINT "BridgeLink_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "BridgeConversion" ADD CONSTRAINT "BridgeConversion_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE RESTRICT ON UPDATE CASCADE;



-- Hand-written from here (Prisma's schema language has no partial indexes).

-- GET /api/economy/referral sums the referral commissions an account received: an index-only range
-- scan of its coin wallet's commission transfers. Partial: only commission transfers are indexed,
-- so every other transfer pays nothing for it.
CREATE INDEX "LedgerTransfer_referral_commission_idx" ON "LedgerTransfer" ("creditAccountId") INCLUDE ("amount") WHERE "action" = 'referral_commission';

-- The bridge's retry sweep reads only pending conversions, by when they are due.
CREATE INDEX "BridgeConversion_pending_nextAttemptAt_idx" ON "BridgeConversion" ("nextAttemptAt") WHERE "status" = 'pending';
