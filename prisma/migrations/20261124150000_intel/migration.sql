-- AlterTable
ALTER TABLE "CommunityItem" ADD COLUMN     "intelPolicy" TEXT NOT NULL DEFAULT 'open';

-- CreateTable
CREATE TABLE "IntelPost" (
    "id" SERIAL NOT NULL,
    "itemId" INTEGER NOT NULL,
    "accountId" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "text" TEXT,
    "changes" JSONB,
    "status" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "resolvedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "IntelPost_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "IntelPost_itemId_status_id_idx" ON "IntelPost"("itemId", "status", "id");

-- CreateIndex
CREATE INDEX "IntelPost_accountId_idx" ON "IntelPost"("accountId");

-- CreateIndex
CREATE UNIQUE INDEX "IntelPost_itemId_accountId_fingerprint_key" ON "IntelPost"("itemId", "accountId", "fingerprint");

-- AddForeignKey
ALTER TABLE "IntelPost" ADD CONSTRAINT "IntelPost_itemId_fkey" FOREIGN KEY ("itemId") REFERENCES "CommunityItem"("id") ON DELETE CASCADE ON UPDATE CASCADE;

