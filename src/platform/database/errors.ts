// Recognises database errors the same way on both drivers: @prisma/adapter-pg maps a unique
// violation to Prisma's P2002, while the PGlite adapter passes PostgreSQL's own code (23505) through.
import { Prisma } from '../../generated/prisma/client.js';

export function isUniqueViolation(error: unknown): boolean {
  if (error instanceof Prisma.PrismaClientKnownRequestError) return error.code === 'P2002';
  const cause = (error as { cause?: { kind?: string; code?: string } } | null)?.cause;
  return cause?.kind === 'UniqueConstraintViolation' || (cause?.kind === 'postgres' && cause.code === '23505');
}

/** The column a unique violation is about, when the driver says (PostgreSQL's detail or Prisma's meta). */
export function uniqueViolationField(error: unknown): string | undefined {
  if (error instanceof Prisma.PrismaClientKnownRequestError) {
    const target = error.meta?.target;
    if (Array.isArray(target)) return String(target[0]);
    const fields = (error.meta?.driverAdapterError as { cause?: { constraint?: { fields?: string[] } } } | undefined)?.cause?.constraint?.fields;
    return fields?.[0]?.replace(/"/g, '');
  }
  const detail = (error as { cause?: { detail?: string } } | null)?.cause?.detail;
  return detail?.match(/^Key \("?([^")]+)"?\)/)?.[1];
}
