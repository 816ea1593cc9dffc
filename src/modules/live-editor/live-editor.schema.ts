// The live editor's status as callers see it, stated once: the answer (REST names,
// src/platform/wire.ts) and the GraphQL type made from it (liveEditorStatus is declared in
// live-editor.operations.ts).
import { z } from 'zod';
import { answerObject } from '../../graphql/answer-object.js';
import type { LiveEditorStatus } from './live-editor.service.js';

export const liveEditorStatusAnswer = z.object({ available: z.boolean(), message: z.string(), features: z.array(z.string()) });
export const LiveEditorStatusRef = answerObject<LiveEditorStatus>('LiveEditorStatus', liveEditorStatusAnswer);
