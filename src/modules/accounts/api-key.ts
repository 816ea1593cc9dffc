// API key format, hashing and constant-time comparison.
// A key is `<kind prefix>_<43 base64url chars>` (256 random bits). Its first 12 characters are the
// display prefix, stored in clear and unique so the row is found by index; the whole key is stored
// only as a SHA-256 digest (a slow hash adds nothing for 256-bit random secrets).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const MASTER_KEY_PREFIX = 'mk_';
export const SUB_KEY_PREFIX = 'sk_';
const DISPLAY_PREFIX_LENGTH = 12;
const KEY_PATTERN = /^(mk|sk)_[A-Za-z0-9_-]{43}$/;

export interface NewKey {
  key: string;
  prefix: string;
  secretHash: string;
}

export function generateKey(kind: 'master' | 'sub'): NewKey {
  const key = (kind === 'master' ? MASTER_KEY_PREFIX : SUB_KEY_PREFIX) + randomBytes(32).toString('base64url');
  return { key, prefix: displayPrefix(key), secretHash: hashKey(key) };
}

export function looksLikeKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

export function displayPrefix(key: string): string {
  return key.slice(0, DISPLAY_PREFIX_LENGTH);
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** Compares a presented key with a stored digest without leaking where they differ. */
export function keyMatches(key: string, storedHash: string): boolean {
  const presented = Buffer.from(hashKey(key), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}

/** Equal-length digest of nothing, compared when no row matched so both paths take the same time. */
export const DUMMY_HASH = hashKey('no-such-key');
