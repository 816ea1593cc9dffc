-- CreateTable
CREATE TABLE "SubjectFollow" (
    "subjectId" INTEGER NOT NULL,
    "accountId" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SubjectFollow_pkey" PRIMARY KEY ("subjectId","accountId")
);

-- CreateIndex
CREATE INDEX "SubjectFollow_accountId_createdAt_idx" ON "SubjectFollow"("accountId", "createdAt");

-- AddForeignKey
ALTER TABLE "SubjectFollow" ADD CONSTRAINT "SubjectFollow_subjectId_fkey" FOREIGN KEY ("subjectId") REFERENCES "WikiSubject"("id") ON DELETE CASCADE ON UPDATE CASCADE;

