// Files under DATA_DIR that hold secrets: created with mode 0600, never world-readable.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function writeSecretFile(path: string, content: string): void {
  writeFileSync(path, content, { mode: 0o600 });
  chmodSync(path, 0o600); // the mode option is ignored when the file already existed
}

/** ADMIN_TOKEN when configured; otherwise DATA_DIR/admin-token, generated on first start. */
export function resolveAdminToken(dataDir: string, configured?: string): { token: string; file?: string; created: boolean } {
  if (configured) return { token: configured, created: false };
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, 'admin-token');
  if (existsSync(file)) return { token: readFileSync(file, 'utf8').trim(), file, created: false };
  const token = `adm_${randomBytes(32).toString('base64url')}`;
  writeSecretFile(file, `${token}\n`);
  return { token, file, created: true };
}
