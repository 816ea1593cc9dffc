// Seals secrets the service keeps: an export's destination secret (a WordPress application password,
// a Shopify access token) for the short time its job waits and runs, and webhook signing secrets for
// as long as the webhook exists. AES-256-GCM under a key of the service (EXPORT_SECRET_KEY, or
// DATA_DIR/export-secret-key generated once, mode 0600). Sealed rather than kept in memory so any
// worker process can run the job or send the delivery (BullMQ, a restart). What the value belongs
// to is the associated data (the job id; `webhook:<id>`), so a sealed value moved to another row
// does not open. Several processes must share one key (set the variable).
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeSecretFile } from '../../../platform/secrets-files.js';

const VERSION = 'v1';

export class CredentialBox {
  private readonly key: Buffer;

  constructor(secret: string) {
    // Any text of 32+ characters becomes a 256-bit key.
    this.key = createHash('sha256').update(`export-credentials:${secret}`).digest();
  }

  static fromConfig(dataDir: string, configured?: string): CredentialBox {
    if (configured) return new CredentialBox(configured);
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const file = join(dataDir, 'export-secret-key');
    if (!existsSync(file)) writeSecretFile(file, `${randomBytes(32).toString('base64url')}\n`);
    return new CredentialBox(readFileSync(file, 'utf8').trim());
  }

  /** `owner`: what the value belongs to (a job id, `webhook:<id>`); it must be given again to open it. */
  seal(owner: number | string, secret: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(String(owner)));
    const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
  }

  /** The secret, or null when the value does not open with this key for this owner (tampered, another key, another row). */
  open(owner: number | string, sealed: string): string | null {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== VERSION || !iv || !tag || body === undefined) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(String(owner)));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      return null;
    }
  }
}
