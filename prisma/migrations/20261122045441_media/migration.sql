-- CreateTable
CREATE TABLE "MediaItem" (
    "id" SERIAL NOT NULL,
    "accountId" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "group" TEXT,
    "folderId" INTEGER,
    "kind" TEXT NOT NULL,
    "mime" TEXT NOT NULL,
    "ext" TEXT NOT NULL,
    "bytes" INTEGER NOT NULL,
    "width" INTEGER,
    "height" INTEGER,
    "format" TEXT,
    "sha256" TEXT NOT NULL,
    "phash" TEXT,
    "blockhash" TEXT,
    "dominantHex" TEXT,
    "colourL" DOUBLE PRECISION,
    "colourA" DOUBLE PRECISION,
    "colourB" DOUBLE PRECISION,
    "caption" TEXT,
    "extractedText" TEXT,
    "tags" TEXT[],
    "tagText" TEXT NOT NULL DEFAULT '',
    "storageKey" TEXT NOT NULL,
    "thumbnailKey" TEXT,
    "sourceUrl" TEXT,
    "attribution" TEXT,
    "trashedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "searchVector" tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english'::regconfig, coalesce("name", '')), 'A') ||
        setweight(to_tsvector('english'::regconfig, coalesce("tagText", '')), 'B') ||
        setweight(to_tsvector('english'::regconfig, coalesce("caption", '') || ' ' || coalesce("extractedText", '')), 'C')
    ) STORED,

    CONSTRAINT "MediaItem_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "MediaFolder" (
    "id" SERIAL NOT NULL,
    "accountId" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "MediaFolder_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Collection" (
    "id" SERIAL NOT NULL,
    "accountId" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "shareToken" TEXT,
    "sharePublic" BOOLEAN NOT NULL DEFAULT false,
    "sharePasswordHash" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Collection_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CollectionItem" (
    "collectionId" INTEGER NOT NULL,
    "mediaId" INTEGER NOT NULL,
    "position" INTEGER NOT NULL DEFAULT 0,
    "addedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "CollectionItem_pkey" PRIMARY KEY ("collectionId","mediaId")
);

-- CreateTable
CREATE TABLE "StockList" (
    "id" SERIAL NOT NULL,
    "accountId" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "shareToken" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "StockList_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "StockItem" (
    "id" SERIAL NOT NULL,
    "listId" INTEGER NOT NULL,
    "url" TEXT NOT NULL,
    "title" TEXT,
    "attribution" TEXT,
    "source" TEXT,
    "thumbnailUrl" TEXT,
    "savedMediaId" INTEGER,
    "addedBy" INTEGER,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "StockItem_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "StockListMember" (
    "listId" INTEGER NOT NULL,
    "accountId" INTEGER NOT NULL,
    "joinedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "StockListMember_pkey" PRIMARY KEY ("listId","accountId")
);

-- CreateTable
CREATE TABLE "MediaMirror" (
    "id" SERIAL NOT NULL,
    "mediaId" INTEGER NOT NULL,
    "url" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "MediaMirror_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CreditEntry" (
    "id" SERIAL NOT NULL,
    "accountId" INTEGER NOT NULL,
    "amount" DECIMAL(14,4) NOT NULL,
    "action" TEXT NOT NULL,
    "reference" TEXT,
    "idempotencyKey" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "CreditEntry_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "MediaItem_accountId_trashedAt_id_idx" ON "MediaItem"("accountId", "trashedAt", "id");

-- CreateIndex
CREATE UNIQUE INDEX "MediaItem_accountId_sha256_key" ON "MediaItem"("accountId", "sha256");

-- CreateIndex
CREATE INDEX "MediaItem_accountId_group_idx" ON "MediaItem"("accountId", "group");

-- CreateIndex
CREATE INDEX "MediaItem_accountId_folderId_idx" ON "MediaItem"("accountId", "folderId");

-- CreateIndex
CREATE UNIQUE INDEX "MediaFolder_accountId_name_key" ON "MediaFolder"("accountId", "name");

-- CreateIndex
CREATE UNIQUE INDEX "Collection_shareToken_key" ON "Collection"("shareToken");

-- CreateIndex
CREATE INDEX "Collection_accountId_id_idx" ON "Collection"("accountId", "id");

-- CreateIndex
CREATE UNIQUE INDEX "StockList_shareToken_key" ON "StockList"("shareToken");

-- CreateIndex
CREATE INDEX "StockList_accountId_id_idx" ON "StockList"("accountId", "id");

-- CreateIndex
CREATE INDEX "StockItem_listId_id_idx" ON "StockItem"("listId", "id");

-- CreateIndex
CREATE UNIQUE INDEX "StockItem_listId_url_key" ON "StockItem"("listId", "url");

-- CreateIndex
CREATE INDEX "StockListMember_accountId_idx" ON "StockListMember"("accountId");

-- CreateIndex
CREATE UNIQUE INDEX "MediaMirror_mediaId_url_key" ON "MediaMirror"("mediaId", "url");

-- CreateIndex
CREATE INDEX "CreditEntry_accountId_id_idx" ON "CreditEntry"("accountId", "id");

-- CreateIndex
CREATE UNIQUE INDEX "CreditEntry_accountId_idempotencyKey_key" ON "CreditEntry"("accountId", "idempotencyKey");

-- AddForeignKey
ALTER TABLE "MediaItem" ADD CONSTRAINT "MediaItem_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "MediaItem" ADD CONSTRAINT "MediaItem_folderId_fkey" FOREIGN KEY ("folderId") REFERENCES "MediaFolder"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "MediaFolder" ADD CONSTRAINT "MediaFolder_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Collection" ADD CONSTRAINT "Collection_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CollectionItem" ADD CONSTRAINT "CollectionItem_collectionId_fkey" FOREIGN KEY ("collectionId") REFERENCES "Collection"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CollectionItem" ADD CONSTRAINT "CollectionItem_mediaId_fkey" FOREIGN KEY ("mediaId") REFERENCES "MediaItem"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "StockList" ADD CONSTRAINT "StockList_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "StockItem" ADD CONSTRAINT "StockItem_listId_fkey" FOREIGN KEY ("listId") REFERENCES "StockList"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "StockListMember" ADD CONSTRAINT "StockListMember_listId_fkey" FOREIGN KEY ("listId") REFERENCES "StockList"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "StockListMember" ADD CONSTRAINT "StockListMember_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "MediaMirror" ADD CONSTRAINT "MediaMirror_mediaId_fkey" FOREIGN KEY ("mediaId") REFERENCES "MediaItem"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CreditEntry" ADD CONSTRAINT "CreditEntry_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- CreateIndex
CREATE INDEX "MediaItem_tags_idx" ON "MediaItem" USING GIN ("tags");

-- Hand-written: colour search reads only this index (the Lab box, then the id of each live item).
CREATE INDEX "MediaItem_colour_idx" ON "MediaItem" ("accountId", "colourL", "colourA", "colourB", "id") WHERE "trashedAt" IS NULL;

-- Hand-written: full-text search over the generated column (Prisma cannot declare either).
CREATE INDEX "MediaItem_searchVector_idx" ON "MediaItem" USING GIN ("searchVector");
