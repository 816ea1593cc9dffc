import { describe, expect, it } from 'vitest';
import { bySpecificity } from '../../rest-shim/shim.js';
import type { AnyRoute } from '../../rest-shim/route.js';

const route = (path: string) => ({ method: 'GET', path }) as AnyRoute;

describe('route order', () => {
  it('puts literal segments before parameters at the same place, keeping the table order otherwise', () => {
    const ordered = bySpecificity([route('/api/media/:id'), route('/api/media/:id/tags'), route('/api/media/list'), route('/api/media/trash'), route('/api/jobs/:job_id')]);
    const paths = ordered.map((r) => r.path);
    expect(paths.indexOf('/api/media/list')).toBeLessThan(paths.indexOf('/api/media/:id'));
    expect(paths.indexOf('/api/media/trash')).toBeLessThan(paths.indexOf('/api/media/:id'));
  });
});
