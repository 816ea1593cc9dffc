-- CreateTable
CREATE TABLE "BotLink" (
    "telegramUserId" BIGINT NOT NULL,
    "accountId" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "BotLink_pkey" PRIMARY KEY ("telegramUserId")
);

-- CreateTable
CREATE TABLE "BotLinkCode" (
    "id" SERIAL NOT NULL,
    "accountId" INTEGER NOT NULL,
    "codeHash" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "usedAt" TIMESTAMP(3),
    "usedByTelegram" BIGINT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "BotLinkCode_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "BotNotice" (
    "id" SERIAL NOT NULL,
    "jobId" INTEGER NOT NULL,
    "chatId" BIGINT NOT NULL,
    "accountId" INTEGER NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "sentAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "BotNotice_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "BotLink_accountId_idx" ON "BotLink"("accountId");

-- CreateIndex
CREATE UNIQUE INDEX "BotLinkCode_codeHash_key" ON "BotLinkCode"("codeHash");

-- CreateIndex
CREATE INDEX "BotLinkCode_accountId_idx" ON "BotLinkCode"("accountId");

-- CreateIndex
CREATE INDEX "BotNotice_sentAt_jobId_idx" ON "BotNotice"("sentAt", "jobId");

-- AddForeignKey
ALTER TABLE "BotLink" ADD CONSTRAINT "BotLink_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "BotLinkCode" ADD CONSTRAINT "BotLinkCode_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "BotNotice" ADD CONSTRAINT "BotNotice_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "Job"("id") ON DELETE CASCADE ON UPDATE CASCADE;

