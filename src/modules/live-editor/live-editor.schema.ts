// GraphQL type of the live editor's status (liveEditorStatus is declared in live-editor.operations.ts).
import { builder } from '../../graphql/builder.js';
import type { LiveEditorStatus } from './live-editor.service.js';

export const LiveEditorStatusRef = builder.objectRef<LiveEditorStatus>('LiveEditorStatus').implement({
  fields: (t) => ({
    available: t.exposeBoolean('available'),
    message: t.exposeString('message'),
    features: t.exposeStringList('features'),
  }),
});
