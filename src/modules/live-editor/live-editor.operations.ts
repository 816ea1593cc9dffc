// Live editor operations declared once (docs/architecture.md): its status (spec "Live editor"), for any key.
import { defineOperations, defineQuery } from '../../graphql/operation.js';
import { ANY_KEY } from '../access/index.js';
import { LiveEditorStatusRef } from './live-editor.schema.js';
import { liveEditorStatus } from './live-editor.service.js';

export const liveEditorOperations = defineOperations({
  liveEditorStatus: defineQuery({
    key: ANY_KEY,
    output: LiveEditorStatusRef,
    plain: true,
    run: () => liveEditorStatus(),
    rest: {
      route: 'GET /api/live-editor/status',
      summary: 'Whether the live editor is available, and its planned features',
    },
  }),
});
