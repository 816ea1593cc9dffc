// ESLint rule: the module boundaries of src/ (docs/architecture.md "Layers").
// - A module (src/modules/<m>/) imports another module only through its public surface, index.ts;
//   a module's GraphQL surface (*.schema.ts, *.operations.ts) may also use another's schema file
//   (the types it refers to: Account, Media, Job ...).
// - src/graphql/ sees a module through index.ts, or its schema files.
// - src/ imports rest-shim/ only from the composition root (src/app.ts).
// Imports are resolved from the importing file, so `../x.js` inside a module's subfolder is judged by
// where it lands, not by how it is spelled.
import { dirname, relative, resolve, sep } from 'node:path';

const root = resolve(dirname(new URL(import.meta.url).pathname), '../..');
const SRC = resolve(root, 'src');
const MODULES = resolve(SRC, 'modules');
const GRAPHQL = resolve(SRC, 'graphql');
const REST_SHIM = resolve(root, 'rest-shim');
const COMPOSITION_ROOTS = new Set([resolve(SRC, 'app.ts')]);

/** The module a file belongs to ('media' for src/modules/media/x/y.ts), or null. */
function moduleOf(file) {
  const rel = relative(MODULES, file);
  if (rel.startsWith('..') || rel === '') return null;
  return rel.split(sep)[0];
}

/** Is `target` (a resolved import) a module's public surface for an importer of this kind? */
function isPublicSurface(target, { schemaFilesToo }) {
  const mod = moduleOf(target);
  const rest = relative(resolve(MODULES, mod), target).replace(/\.(js|ts)$/, '');
  if (rest === 'index') return true;
  return schemaFilesToo && !rest.includes(sep) && (rest.endsWith('.schema') || rest.endsWith('.operations'));
}

export const moduleBoundaries = {
  meta: {
    type: 'problem',
    docs: { description: 'keeps modules, src/graphql and rest-shim within their boundaries' },
    schema: [],
    messages: {
      otherModule: "'{{source}}' reaches into the module {{module}}: import from its index.ts (its public surface) instead",
      graphqlInternals: "'{{source}}' reaches into the module {{module}}: src/graphql imports a module's index.ts or its *.schema.ts only",
      restShim: "'{{source}}': src/ imports rest-shim/ only from the composition root (src/app.ts)",
    },
  },
  create(context) {
    const file = resolve(context.filename);
    if (!file.startsWith(SRC + sep)) return {};
    const own = moduleOf(file);
    const inGraphql = file.startsWith(GRAPHQL + sep);
    const check = (node) => {
      const source = node.source?.value;
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const target = resolve(dirname(file), source);
      if ((target === REST_SHIM || target.startsWith(REST_SHIM + sep)) && !COMPOSITION_ROOTS.has(file)) {
        context.report({ node, messageId: 'restShim', data: { source } });
        return;
      }
      const mod = moduleOf(target);
      if (!mod || mod === own) return;
      const schemaToSchema = file.endsWith('.schema.ts') || file.endsWith('.operations.ts');
      if (own !== null && !isPublicSurface(target, { schemaFilesToo: schemaToSchema })) {
        context.report({ node, messageId: 'otherModule', data: { source, module: mod } });
      } else if (inGraphql && !isPublicSurface(target, { schemaFilesToo: true })) {
        context.report({ node, messageId: 'graphqlInternals', data: { source, module: mod } });
      }
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
  },
};

export default { rules: { 'module-boundaries': moduleBoundaries } };
