-- CreateTable
CREATE TABLE "CommunityItem" (
    "id" SERIAL NOT NULL,
    "accountId" INTEGER NOT NULL,
    "objectId" INTEGER NOT NULL,
    "origin" TEXT NOT NULL DEFAULT 'contribute',
    "name" TEXT,
    "tags" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "sourceProvider" TEXT,
    "sourceUrl" TEXT,
    "public" BOOLEAN NOT NULL DEFAULT true,
    "verified" BOOLEAN NOT NULL DEFAULT false,
    "storageKey" TEXT NOT NULL,
    "mime" TEXT NOT NULL,
    "width" INTEGER NOT NULL,
    "height" INTEGER NOT NULL,
    "originalKey" TEXT,
    "originalMime" TEXT,
    "caption" TEXT,
    "labels" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "words" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "analyzedAt" TIMESTAMP(3),
    "latitude" DOUBLE PRECISION,
    "longitude" DOUBLE PRECISION,
    "attributionHandle" TEXT,
    "unlockPrice" BIGINT NOT NULL DEFAULT 0,
    "removedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "CommunityItem_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CommunityTagging" (
    "id" SERIAL NOT NULL,
    "itemId" INTEGER NOT NULL,
    "accountId" INTEGER NOT NULL,
    "day" DATE NOT NULL,
    "tags" TEXT[],
    "verified" BOOLEAN NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "CommunityTagging_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CommunityUnlock" (
    "itemId" INTEGER NOT NULL,
    "accountId" INTEGER NOT NULL,
    "price" BIGINT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "CommunityUnlock_pkey" PRIMARY KEY ("itemId","accountId")
);

-- CreateTable
CREATE TABLE "OwnershipClaim" (
    "id" SERIAL NOT NULL,
    "itemId" INTEGER NOT NULL,
    "accountId" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "royalty" BIGINT,
    "reason" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "reviewedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "OwnershipClaim_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Bounty" (
    "id" SERIAL NOT NULL,
    "accountId" INTEGER NOT NULL,
    "subjectSlug" TEXT NOT NULL,
    "subjectName" TEXT NOT NULL,
    "description" TEXT,
    "rewardPerPhoto" BIGINT NOT NULL,
    "photosNeeded" INTEGER NOT NULL,
    "photosClaimed" INTEGER NOT NULL DEFAULT 0,
    "status" TEXT NOT NULL DEFAULT 'open',
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "closedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Bounty_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "BountyClaim" (
    "id" SERIAL NOT NULL,
    "bountyId" INTEGER NOT NULL,
    "slot" INTEGER NOT NULL,
    "itemId" INTEGER NOT NULL,
    "accountId" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "BountyClaim_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "CommunityItem_createdAt_idx" ON "CommunityItem"("createdAt");

-- CreateIndex
CREATE INDEX "CommunityItem_objectId_idx" ON "CommunityItem"("objectId");

-- CreateIndex
CREATE INDEX "CommunityItem_tags_idx" ON "CommunityItem" USING GIN ("tags");

-- CreateIndex
CREATE UNIQUE INDEX "CommunityItem_accountId_objectId_key" ON "CommunityItem"("accountId", "objectId");

-- CreateIndex
CREATE UNIQUE INDEX "CommunityTagging_itemId_accountId_day_key" ON "CommunityTagging"("itemId", "accountId", "day");

-- CreateIndex
CREATE INDEX "CommunityUnlock_accountId_idx" ON "CommunityUnlock"("accountId");

-- CreateIndex
CREATE INDEX "OwnershipClaim_status_id_idx" ON "OwnershipClaim"("status", "id");

-- CreateIndex
CREATE UNIQUE INDEX "OwnershipClaim_itemId_accountId_kind_key" ON "OwnershipClaim"("itemId", "accountId", "kind");

-- CreateIndex
CREATE INDEX "Bounty_status_expiresAt_idx" ON "Bounty"("status", "expiresAt");

-- CreateIndex
CREATE INDEX "Bounty_accountId_idx" ON "Bounty"("accountId");

-- CreateIndex
CREATE UNIQUE INDEX "BountyClaim_itemId_key" ON "BountyClaim"("itemId");

-- CreateIndex
CREATE UNIQUE INDEX "BountyClaim_bountyId_slot_key" ON "BountyClaim"("bountyId", "slot");

-- AddForeignKey
ALTER TABLE "CommunityItem" ADD CONSTRAINT "CommunityItem_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CommunityItem" ADD CONSTRAINT "CommunityItem_objectId_fkey" FOREIGN KEY ("objectId") REFERENCES "ImageObject"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CommunityTagging" ADD CONSTRAINT "CommunityTagging_itemId_fkey" FOREIGN KEY ("itemId") REFERENCES "CommunityItem"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CommunityUnlock" ADD CONSTRAINT "CommunityUnlock_itemId_fkey" FOREIGN KEY ("itemId") REFERENCES "CommunityItem"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "OwnershipClaim" ADD CONSTRAINT "OwnershipClaim_itemId_fkey" FOREIGN KEY ("itemId") REFERENCES "CommunityItem"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "BountyClaim" ADD CONSTRAINT "BountyClaim_bountyId_fkey" FOREIGN KEY ("bountyId") REFERENCES "Bounty"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "BountyClaim" ADD CONSTRAINT "BountyClaim_itemId_fkey" FOREIGN KEY ("itemId") REFERENCES "CommunityItem"("id") ON DELETE CASCADE ON UPDATE CASCADE;

