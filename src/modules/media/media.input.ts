// Validation of media library inputs (names as in the spec: snake_case REST fields).
import { z } from 'zod';
import { absoluteHttpUrl, pageArgs } from '../../platform/validation.js';

export const MEDIA_KINDS = ['image', 'video', 'document'] as const;
export const MAX_TAGS = 50;

const tag = z
  .string({ error: 'expected strings' })
  .trim()
  .toLowerCase()
  .min(1, 'expected non-empty strings')
  .max(50, 'expected tags of at most 50 characters');

/** Tags as a list: trimmed, lower-case, unique, in the order given. */
export const tagsSchema = z
  .array(tag, { error: 'expected an array of strings, e.g. ["beach","sunset"] (JSON text in a form)' })
  .max(MAX_TAGS, `expected at most ${MAX_TAGS} tags`)
  .transform((tags) => [...new Set(tags)]);

export const pageSchema = z.object({
  ...pageArgs(200, 50),
});

/** A page of the library or, with trashed, of the trash (REST: two rows, each with its own value). */
export const listSchema = pageSchema.extend({ trashed: z.boolean().optional().describe('The trash instead of the library') });

export const searchSchema = pageSchema.extend({
  q: z.string().trim().max(500, 'expected at most 500 characters').optional(),
  tag: z.string().trim().toLowerCase().max(50).optional(),
  group: z.string().trim().max(200).optional(),
  folder_id: z.number({ error: 'expected an integer' }).int('expected an integer').positive('expected a folder id').optional(),
  type: z.enum(MEDIA_KINDS, { error: `expected one of ${MEDIA_KINDS.join(', ')}` }).optional(),
  color: z.string().trim().optional().describe('Dominant colour hex (#rrggbb): nearest colours first'),
});

export const uploadSchema = z.object({
  name: z.string().trim().min(1, 'expected a non-empty name').max(255, 'expected at most 255 characters').optional(),
  group: z.string().trim().min(1).max(200, 'expected at most 200 characters').optional(),
  tags: tagsSchema.default([]),
  auto_tag: z.boolean().default(false),
  folder_id: z.number().int().positive().optional(),
});

/** An upload's form (REST multipart, GraphQL arguments): the file and what uploadSchema takes of it. */
export const uploadFormSchema = uploadSchema
  .pick({ name: true, group: true, tags: true, auto_tag: true })
  .extend({ file: z.file({ error: 'file is required: send the file as the multipart field "file"' }) });

export const updateSchema = z.object({
  name: z.string().trim().min(1, 'expected a non-empty name').max(255, 'expected at most 255 characters').optional(),
  group: z.string().trim().max(200, 'expected at most 200 characters').nullable().optional(),
  folder_id: z.number({ error: 'expected a folder id or null' }).int().positive().nullable().optional(),
  caption: z.string().trim().max(2000, 'expected at most 2000 characters').nullable().optional(),
  tags: tagsSchema.optional(),
});

export const TAG_ACTIONS = ['add', 'remove', 'replace'] as const;
export const tagChangeSchema = z.object({
  action: z.enum(TAG_ACTIONS, { error: `expected one of ${TAG_ACTIONS.join(', ')}` }).default('add'),
  tags: tagsSchema,
});

export const BULK_ACTIONS = ['trash', 'restore', 'purge', 'move', 'tag', 'list'] as const;
export const bulkSchema = z
  .object({
    ids: z.array(z.number({ error: 'expected media ids (integers)' }).int('expected media ids (integers)').positive('expected media ids'), { error: 'ids is required: an array of media ids' }).min(1, 'ids is required: an array of media ids').max(500, 'expected at most 500 ids'),
    action: z.enum(BULK_ACTIONS, { error: (issue) => (issue.input === undefined ? `action is required: one of ${BULK_ACTIONS.join(', ')}` : `expected one of ${BULK_ACTIONS.join(', ')}`) }),
    folder_id: z.number({ error: 'expected a folder id or null' }).int().positive().nullable().optional(),
    tags: tagsSchema.optional(),
  })
  .superRefine((value, ctx) => {
    if (value.action === 'move' && value.folder_id === undefined) ctx.addIssue({ code: 'custom', path: ['folder_id'], message: 'folder_id is required for move (null moves out of any folder)' });
    if (value.action === 'tag' && !value.tags?.length) ctx.addIssue({ code: 'custom', path: ['tags'], message: 'tags is required for tag: a non-empty array' });
  });

export const mirrorSchema = z.object({
  media_id: z.number({ error: 'media_id is required: the id of a media item' }).int('expected an integer').positive('expected a media id'),
  url: absoluteHttpUrl('url is required: where the same image is also found'),
});
