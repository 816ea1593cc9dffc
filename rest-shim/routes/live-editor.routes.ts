// Spec "Live editor": GET /api/live-editor/status, declared in src/modules/live-editor/live-editor.operations.ts.
import { restRoutesOf } from '../derive.js';
import { liveEditorOperations } from '../../src/modules/live-editor/live-editor.operations.js';

export const liveEditorRoutes = restRoutesOf(liveEditorOperations);
