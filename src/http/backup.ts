// GET /api/admin/backup: the embedded store as one ZIP, made while the service runs (src/platform/backup.ts).
// Here rather than in the REST shim: it streams a file, it is not an operation of the GraphQL schema.
import type { Request, Response } from 'express';
import { checkAdminToken } from '../graphql/context.js';
import { backupUnsupported, writeBackup } from '../platform/backup.js';
import type { Database } from '../platform/database/database.js';
import type { Logger } from '../platform/logger.js';
import type { BlobStore } from '../platform/storage/index.js';
import { sendError } from './respond.js';

export const BACKUP_PATH = '/api/admin/backup';

export function backupHandler(deps: { db: Database; blobs: BlobStore; adminToken: string; dataDir: string; logger: Logger }) {
  return async (req: Request, res: Response): Promise<void> => {
    const token = req.get('x-admin-token')?.trim() || /^Bearer\s+(.+)$/i.exec(req.get('authorization') ?? '')?.[1]?.trim();
    if (!token) return sendError(res, 401, 'backup: send the admin token (X-Admin-Token)');
    if (!checkAdminToken(token, deps.adminToken)) return sendError(res, 401, 'invalid admin token');
    const problem = backupUnsupported(deps.db, deps.blobs);
    if (problem) return sendError(res, 409, problem);
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    res.status(200).set({
      'Content-Type': 'application/zip',
      'Content-Disposition': `attachment; filename="backup-${stamp}.zip"`,
      'Cache-Control': 'no-store',
      'Accept-Ranges': 'none',
    });
    try {
      const { files } = await writeBackup(deps, res);
      deps.logger.info({ files }, 'backup written');
    } catch (error) {
      // The ZIP is cut short (writeZip destroys the response), so the client sees a failed download.
      deps.logger.error({ err: error }, 'backup failed');
      if (!res.headersSent) sendError(res, 500, 'backup failed');
      else res.destroy();
    }
  };
}
