-- CreateTable
CREATE TABLE "ExportItem" (
    "id" SERIAL NOT NULL,
    "jobId" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,
    "mediaId" INTEGER NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "remoteId" TEXT,
    "remoteUrl" TEXT,
    "error" TEXT,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ExportItem_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ExportCredential" (
    "jobId" INTEGER NOT NULL,
    "sealed" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ExportCredential_pkey" PRIMARY KEY ("jobId")
);

-- CreateIndex
CREATE UNIQUE INDEX "ExportItem_jobId_position_key" ON "ExportItem"("jobId", "position");

-- AddForeignKey
ALTER TABLE "ExportItem" ADD CONSTRAINT "ExportItem_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "Job"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ExportCredential" ADD CONSTRAINT "ExportCredential_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "Job"("id") ON DELETE CASCADE ON UPDATE CASCADE;

