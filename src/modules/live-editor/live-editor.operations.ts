// Live editor operations declared once (docs/architecture.md): its status (spec "Live editor"), for any key.
import { defineOperation, defineOperations } from '../../graphql/operation.js';
import { ANY_KEY } from '../access/index.js';
import { LiveEditorStatusRef, liveEditorStatusAnswer } from './live-editor.schema.js';
import { liveEditorStatus } from './live-editor.service.js';

export const liveEditorOperations = defineOperations({
  liveEditorStatus: defineOperation({
    kind: 'query',
    key: ANY_KEY,
    output: LiveEditorStatusRef,
    plain: true,
    run: () => liveEditorStatus(),
    rest: {
      method: 'GET',
      path: '/api/live-editor/status',
      summary: 'Whether the live editor is available, and its planned features',
      response: liveEditorStatusAnswer,
    },
  }),
});
