// The composition root stays on top: no module, GraphQL file or HTTP router imports src/services.ts
// or src/config.ts (type-only imports count: a type import is how a circle through the root starts),
// and no import circle passes through src/services.ts. The graph is TypeScript's own resolution of
// every import under src/ and rest-shim/ (import-graph.ts).
import { describe, expect, it } from 'vitest';
import { importCircles, importGraph } from './import-graph.js';

const ROOT_FILES = ['src/services.ts', 'src/config.ts'];
const BELOW_THE_ROOT = /^src\/(modules|graphql|http)\//;

describe('import graph', () => {
  const graph = importGraph(['src', 'rest-shim']);

  it('reads the whole source tree', () => {
    expect(graph.get('src/services.ts')).toContain('src/config.ts');
    expect([...graph.keys()].filter((file) => BELOW_THE_ROOT.test(file)).length).toBeGreaterThan(100);
  });

  it('no file under src/modules, src/graphql or src/http imports src/services.ts or src/config.ts', () => {
    const offenders = [...graph]
      .filter(([file]) => BELOW_THE_ROOT.test(file))
      .flatMap(([file, targets]) => targets.filter((target) => ROOT_FILES.includes(target)).map((target) => `${file} imports ${target}`));
    expect(offenders).toEqual([]);
  });

  it('no import circle passes through src/services.ts', () => {
    const throughRoot = importCircles(graph).find((circle) => circle.includes('src/services.ts'));
    expect(throughRoot ?? []).toEqual([]);
  });

  it('finds a circle when there is one', () => {
    const circles = importCircles(
      new Map([
        ['a.ts', ['b.ts']],
        ['b.ts', ['c.ts']],
        ['c.ts', ['a.ts', 'd.ts']],
        ['d.ts', []],
      ]),
    );
    expect(circles).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });
});
