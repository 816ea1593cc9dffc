-- AlterTable
ALTER TABLE "CommunityItem" ADD COLUMN     "visionCaption" TEXT;

-- The caption vision gave is kept apart from the shown one (an intel proposal may change that):
-- existing captions are vision's unless a merged proposal changed them.
UPDATE "CommunityItem" i SET "visionCaption" = i."caption"
WHERE i."analyzedAt" IS NOT NULL AND i."caption" IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM "IntelPost" p WHERE p."itemId" = i."id" AND p."status" = 'merged' AND p."changes" ? 'caption');

-- CreateTable
CREATE TABLE "CommunityTagConfirmation" (
    "itemId" INTEGER NOT NULL,
    "tag" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "evidence" TEXT NOT NULL,
    "matched" TEXT NOT NULL,
    "accountId" INTEGER NOT NULL,
    "confirmedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "CommunityTagConfirmation_pkey" PRIMARY KEY ("itemId","tag")
);

-- CreateIndex
CREATE INDEX "CommunityTagConfirmation_key_evidence_idx" ON "CommunityTagConfirmation"("key", "evidence");

-- AddForeignKey
ALTER TABLE "CommunityTagConfirmation" ADD CONSTRAINT "CommunityTagConfirmation_itemId_fkey" FOREIGN KEY ("itemId") REFERENCES "CommunityItem"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Existing verified items: "half the set matched" verified them as a whole, so which tag vision saw is
-- not recorded. Each current tag that equals one of the item's vision labels is confirmed by that
-- label, one that equals an OCR word by text; every other confirmation goes (a synonym or plural is
-- confirmed again on the next tagging). The key is the tag's slug (lower case, other runs as '-').
INSERT INTO "CommunityTagConfirmation" ("itemId", "tag", "key", "evidence", "matched", "accountId", "confirmedAt")
SELECT i."id", t.tag,
       trim(both '-' from regexp_replace(lower(t.tag), '[^[:alnum:]]+', '-', 'g')),
       CASE WHEN lower(t.tag) = ANY(i."labels") THEN 'label' ELSE 'text' END,
       lower(t.tag), i."accountId", CURRENT_TIMESTAMP
FROM "CommunityItem" i CROSS JOIN LATERAL (SELECT DISTINCT unnest(i."tags") AS tag) t
WHERE i."verified" AND (lower(t.tag) = ANY(i."labels") OR lower(t.tag) = ANY(i."words"))
ON CONFLICT DO NOTHING;

UPDATE "CommunityItem" i SET "verified" = EXISTS (SELECT 1 FROM "CommunityTagConfirmation" c WHERE c."itemId" = i."id") WHERE i."verified";
