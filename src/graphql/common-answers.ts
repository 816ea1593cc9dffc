// Answers many modules give alike, each with the GraphQL type made from it (answer-object.ts): an
// offset page of items, and the confirmation of a delete.
import { z } from 'zod';
import { answerObject } from './answer-object.js';
import { answerFrom, id, pageCounts } from '../platform/wire.js';

/** An offset page's answer: `<items>` (one answer each), then the page's counts (pageCounts). */
export const pageAnswer = <K extends string, S extends z.ZodType>(items: K, item: S) =>
  z.object({ [items]: z.array(item), ...pageCounts } as Record<K, z.ZodArray<S>> & typeof pageCounts);

/** The object type of an offset page made from its answer (pageAnswer); `options` as answerObject takes them. */
export const answerPage = <Shape = Record<string, unknown>>(name: string, items: string, item: z.ZodType, options?: Parameters<typeof answerObject<Shape>>[2]) =>
  answerObject<Shape>(name, pageAnswer(items, item), options);

/** A delete's answer `{ deleted: true, <idKey>: <the id> }`: the result has the id only (`databaseId`). */
export const deletedAnswer = (idKey: string) => answerFrom(z.object({ deleted: z.literal(true), [idKey]: id }), { deleted: null, [idKey]: 'databaseId' });

/** The object type of a delete's answer (deletedAnswer). */
export const deletedObject = (name: string, idKey: string) => answerObject<{ id: number }>(name, deletedAnswer(idKey));

/** A delete's REST answer: `deleted: true` is the row's own, before the answer read from the result. */
export const withDeleted = (answer: Record<string, unknown>) => ({ deleted: true as const, ...answer });
