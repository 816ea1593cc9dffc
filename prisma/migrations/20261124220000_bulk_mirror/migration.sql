-- CreateTable
CREATE TABLE "BulkMirror" (
    "id" INTEGER NOT NULL,
    "accountId" INTEGER NOT NULL,
    "totalUrls" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "BulkMirror_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "MirrorCheck" (
    "id" SERIAL NOT NULL,
    "bulkMirrorId" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,
    "url" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'pending',
    "objectId" INTEGER,
    "distance" INTEGER,
    "reason" TEXT,
    "coins" BIGINT NOT NULL DEFAULT 0,
    "checkedAt" TIMESTAMP(3),

    CONSTRAINT "MirrorCheck_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ObjectMirror" (
    "id" SERIAL NOT NULL,
    "url" TEXT NOT NULL,
    "objectId" INTEGER NOT NULL,
    "accountId" INTEGER NOT NULL,
    "bulkMirrorId" INTEGER,
    "distance" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ObjectMirror_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "BulkMirror_accountId_idx" ON "BulkMirror"("accountId");

-- CreateIndex
CREATE INDEX "MirrorCheck_bulkMirrorId_state_idx" ON "MirrorCheck"("bulkMirrorId", "state");

-- CreateIndex
CREATE UNIQUE INDEX "MirrorCheck_bulkMirrorId_position_key" ON "MirrorCheck"("bulkMirrorId", "position");

-- CreateIndex
CREATE UNIQUE INDEX "ObjectMirror_url_key" ON "ObjectMirror"("url");

-- CreateIndex
CREATE INDEX "ObjectMirror_objectId_idx" ON "ObjectMirror"("objectId");

-- AddForeignKey
ALTER TABLE "BulkMirror" ADD CONSTRAINT "BulkMirror_id_fkey" FOREIGN KEY ("id") REFERENCES "Job"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "MirrorCheck" ADD CONSTRAINT "MirrorCheck_bulkMirrorId_fkey" FOREIGN KEY ("bulkMirrorId") REFERENCES "BulkMirror"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "MirrorCheck" ADD CONSTRAINT "MirrorCheck_objectId_fkey" FOREIGN KEY ("objectId") REFERENCES "ImageObject"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ObjectMirror" ADD CONSTRAINT "ObjectMirror_objectId_fkey" FOREIGN KEY ("objectId") REFERENCES "ImageObject"("id") ON DELETE CASCADE ON UPDATE CASCADE;

