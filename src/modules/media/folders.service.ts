// Media folders: one level, names unique per account. Deleting a folder keeps its items (they
// leave the folder).
import { z } from 'zod';
import type { MediaFolder, Prisma } from '../../generated/prisma/client.js';
import type { Database } from '../../platform/database/database.js';
import { Conflict } from '../../platform/errors.js';
import { isUniqueViolation } from '../../platform/database/errors.js';
import { parseInput } from '../../platform/validation.js';
import type { Actor } from '../accounts/index.js';
import { folderPolicy } from './media.access.js';

export const nameSchema = z.object({
  name: z.string({ error: 'name is required: the folder name' }).trim().min(1, 'name is required: the folder name').max(200, 'expected at most 200 characters'),
});

export type FolderWithCount = MediaFolder & { itemCount: number };

export class FoldersService {
  constructor(private readonly db: Database) {}

  async list(actor: Actor): Promise<FolderWithCount[]> {
    const folders = await this.db.prisma.mediaFolder.findMany({
      where: folderPolicy.where(actor),
      orderBy: { name: 'asc' },
      include: { _count: { select: { items: { where: { trashedAt: null } } } } },
    });
    return folders.map(({ _count, ...folder }) => ({ ...folder, itemCount: _count.items }));
  }

  async create(actor: Actor, input: { name?: unknown }): Promise<MediaFolder> {
    const { name } = parseInput(nameSchema, input);
    return this.uniqueName(name, () => this.db.prisma.mediaFolder.create({ data: { accountId: actor.accountId, name } }));
  }

  async rename(actor: Actor, id: number, input: { name?: unknown }): Promise<MediaFolder> {
    const { name } = parseInput(nameSchema, input);
    await this.get(actor, id);
    return this.uniqueName(name, () => this.db.prisma.mediaFolder.update({ where: { id }, data: { name } }));
  }

  /** Answers the folder as it was, with the count of items that just left it. */
  async delete(actor: Actor, id: number): Promise<FolderWithCount> {
    const folder = await this.get(actor, id);
    const itemCount = await this.db.prisma.mediaItem.count({ where: { folderId: id, trashedAt: null } });
    await this.db.prisma.mediaFolder.delete({ where: { id } });
    return { ...folder, itemCount };
  }

  async get(actor: Actor | null, id: number, query: Pick<Prisma.MediaFolderFindFirstArgs, 'select' | 'include'> = {}): Promise<MediaFolder> {
    return folderPolicy.findOne(actor, id, (where) => this.db.prisma.mediaFolder.findFirst({ ...query, where }) as Promise<MediaFolder | null>);
  }

  private async uniqueName(name: string, write: () => Promise<MediaFolder>): Promise<MediaFolder> {
    try {
      return await write();
    } catch (error) {
      if (isUniqueViolation(error)) throw new Conflict(`a folder named ${name} already exists`, 'name');
      throw error;
    }
  }
}
