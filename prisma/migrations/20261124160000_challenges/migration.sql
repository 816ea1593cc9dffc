-- CreateTable
CREATE TABLE "Challenge" (
    "id" SERIAL NOT NULL,
    "title" TEXT NOT NULL,
    "description" TEXT,
    "category" TEXT,
    "subjectIds" INTEGER[] DEFAULT ARRAY[]::INTEGER[],
    "startsAt" TIMESTAMP(3) NOT NULL,
    "endsAt" TIMESTAMP(3) NOT NULL,
    "endedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Challenge_pkey" PRIMARY KEY ("id")
);


-- Hand-written from here (Prisma's schema language has no CHECK or exclusion constraints).
-- A window ends at or after its start (equal: a scheduled challenge the operator called off, never
-- active); a scope is a category or a non-empty list of subjects, never both; and no two windows
-- overlap, so at most one challenge is active at any moment, whatever writes concurrently.
ALTER TABLE "Challenge"
  ADD CONSTRAINT "Challenge_window" CHECK ("endsAt" >= "startsAt"),
  ADD CONSTRAINT "Challenge_one_scope" CHECK (("category" IS NULL) <> (cardinality("subjectIds") = 0)),
  ADD CONSTRAINT "Challenge_no_overlap" EXCLUDE USING gist (tsrange("startsAt", "endsAt") WITH &&);
