-- AlterTable
ALTER TABLE "Schedule" ADD COLUMN     "render" BOOLEAN NOT NULL DEFAULT false;

