// Spec "Live editor": GET /api/live-editor/status (src/modules/live-editor/).
import { z } from 'zod';
import { defineRoute } from '../route.js';
import { ANY_KEY } from '../../src/modules/access/index.js';
import { LiveEditorStatusDocument } from '../generated/operations.js';

export const liveEditorRoutes = [
  defineRoute({
    method: 'GET',
    path: '/api/live-editor/status',
    auth: 'key',
    key: ANY_KEY,
    summary: 'Whether the live editor is available, and its planned features',
    operation: LiveEditorStatusDocument,
    response: z.object({ available: z.boolean(), message: z.string(), features: z.array(z.string()) }),
    shape: (data) => ({ ...data.liveEditorStatus }),
  }),
];
