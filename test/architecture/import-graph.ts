// The repository's import graph as TypeScript resolves it (type-only and dynamic imports count):
// what the architecture tests walk. Built from TypeScript's own scanner and module resolution, so it
// needs no bundler and reads the whole of src/ in a second or two.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';

export const ROOT = resolve(import.meta.dirname, '../..');

/** Every .ts file under the folders, as paths relative to the repository root. */
function sourceFiles(folders: string[]): string[] {
  return folders.flatMap((folder) =>
    readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts') && !name.includes('generated'))
      .map((name) => join(folder, name)),
  );
}

/** file -> the repository files it imports (relative paths), for every .ts file under the folders. */
export function importGraph(folders: string[]): Map<string, string[]> {
  const options: ts.CompilerOptions = { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, allowImportingTsExtensions: true };
  const cache = ts.createModuleResolutionCache(ROOT, (name) => name, options);
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(folders)) {
    const path = join(ROOT, file);
    const { importedFiles } = ts.preProcessFile(readFileSync(path, 'utf8'), true, true);
    const targets = importedFiles
      .filter((imported) => imported.fileName.startsWith('.'))
      .map((imported) => ts.resolveModuleName(imported.fileName, path, options, ts.sys, cache).resolvedModule)
      .filter((resolved): resolved is ts.ResolvedModuleFull => resolved !== undefined && !resolved.isExternalLibraryImport)
      .map((resolved) => relative(ROOT, resolved.resolvedFileName));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The strongly connected components of more than one file (each an import circle), by Tarjan's algorithm. */
export function importCircles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const circle: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      circle.push(member);
    } while (member !== file);
    if (circle.length > 1) circles.push(circle.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return circles;
}
