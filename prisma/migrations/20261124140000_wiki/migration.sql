-- CreateTable
CREATE TABLE "WikiSubject" (
    "id" SERIAL NOT NULL,
    "slug" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "category" TEXT NOT NULL,
    "description" TEXT,
    "featuredImageUrl" TEXT,
    "featuredKey" TEXT,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "accountId" INTEGER NOT NULL,
    "reviewedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "WikiSubject_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WikiMedia" (
    "id" SERIAL NOT NULL,
    "subjectId" INTEGER NOT NULL,
    "accountId" INTEGER NOT NULL,
    "objectId" INTEGER NOT NULL,
    "photoType" TEXT NOT NULL,
    "context" TEXT,
    "storageKey" TEXT NOT NULL,
    "mime" TEXT NOT NULL,
    "width" INTEGER NOT NULL,
    "height" INTEGER NOT NULL,
    "caption" TEXT,
    "labels" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "words" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "visionAgrees" BOOLEAN,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "confirms" INTEGER NOT NULL DEFAULT 0,
    "rejects" INTEGER NOT NULL DEFAULT 0,
    "confidence" DOUBLE PRECISION,
    "decidedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "WikiMedia_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WikiVote" (
    "mediaId" INTEGER NOT NULL,
    "accountId" INTEGER NOT NULL,
    "vote" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "WikiVote_pkey" PRIMARY KEY ("mediaId","accountId")
);

-- CreateIndex
CREATE UNIQUE INDEX "WikiSubject_slug_key" ON "WikiSubject"("slug");

-- CreateIndex
CREATE INDEX "WikiSubject_status_createdAt_idx" ON "WikiSubject"("status", "createdAt");

-- CreateIndex
CREATE INDEX "WikiSubject_category_idx" ON "WikiSubject"("category");

-- CreateIndex
CREATE INDEX "WikiSubject_accountId_idx" ON "WikiSubject"("accountId");

-- CreateIndex
CREATE INDEX "WikiMedia_subjectId_status_confidence_idx" ON "WikiMedia"("subjectId", "status", "confidence");

-- CreateIndex
CREATE INDEX "WikiMedia_status_id_idx" ON "WikiMedia"("status", "id");

-- CreateIndex
CREATE INDEX "WikiMedia_accountId_idx" ON "WikiMedia"("accountId");

-- CreateIndex
CREATE UNIQUE INDEX "WikiMedia_subjectId_objectId_key" ON "WikiMedia"("subjectId", "objectId");

-- CreateIndex
CREATE INDEX "WikiVote_accountId_idx" ON "WikiVote"("accountId");

-- AddForeignKey
ALTER TABLE "WikiSubject" ADD CONSTRAINT "WikiSubject_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WikiMedia" ADD CONSTRAINT "WikiMedia_subjectId_fkey" FOREIGN KEY ("subjectId") REFERENCES "WikiSubject"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WikiMedia" ADD CONSTRAINT "WikiMedia_objectId_fkey" FOREIGN KEY ("objectId") REFERENCES "ImageObject"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WikiVote" ADD CONSTRAINT "WikiVote_mediaId_fkey" FOREIGN KEY ("mediaId") REFERENCES "WikiMedia"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Full text over a subject's name, category and description for GET /api/wiki/subjects?q=
-- ('simple': no language's stemming; subjects are named in every language).
ALTER TABLE "WikiSubject" ADD COLUMN "search" tsvector
  GENERATED ALWAYS AS (to_tsvector('simple', "name" || ' ' || "category" || ' ' || coalesce("description", ''))) STORED;
CREATE INDEX "WikiSubject_search_idx" ON "WikiSubject" USING GIN ("search");
