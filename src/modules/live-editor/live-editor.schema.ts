import { builder } from '../../graphql/builder.js';
import { ANY_KEY, authScopesOf } from '../access/index.js';
import { liveEditorStatus, type LiveEditorStatus } from './live-editor.service.js';

const LiveEditorStatusRef = builder.objectRef<LiveEditorStatus>('LiveEditorStatus').implement({
  fields: (t) => ({
    available: t.exposeBoolean('available'),
    message: t.exposeString('message'),
    features: t.exposeStringList('features'),
  }),
});

builder.queryField('liveEditorStatus', (t) =>
  t.field({ type: LiveEditorStatusRef, authScopes: authScopesOf(ANY_KEY), resolve: () => liveEditorStatus() }),
);
