// A fake Shopify Admin GraphQL API on 127.0.0.1. It executes the client's documents with graphql-js
// against a subset of the real schema (types and argument names as shopify.dev documents them), so
// a misspelt field or argument fails here as it would there. Behaviour as documented: X-Shopify-
// Access-Token, stagedUploadsCreate targets that take a multipart POST (parameters, then the file),
// fileCreate from a staged resourceUrl or an external URL (fetched, as Shopify does), files that move
// UPLOADED -> PROCESSING -> READY (or FAILED with fileErrors) as they are polled, fileUpdate with
// referencesToAdd, userErrors, extensions.cost on every answer, THROTTLED answers, and the HTTP
// errors (401 with a string `errors`, 402, 423, 429 with Retry-After, 5xx).
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import { buildSchema, graphql } from 'graphql';

const SDL = /* GraphQL */ `
  scalar UnsignedInt64
  enum FileContentType { EXTERNAL_VIDEO FILE IMAGE MODEL_3D VIDEO }
  enum FileStatus { FAILED PROCESSING READY UPLOADED }
  enum StagedUploadTargetGenerateUploadResource { BULK_MUTATION_VARIABLES COLLECTION_IMAGE FILE IMAGE MODEL_3D PRODUCT_IMAGE SHOP_IMAGE URL_REDIRECT_IMPORT VIDEO }
  enum StagedUploadHttpMethodType { POST PUT }
  enum FileCreateInputDuplicateResolutionMode { APPEND_UUID RAISE_ERROR REPLACE }
  input StagedUploadInput { resource: StagedUploadTargetGenerateUploadResource!, filename: String!, mimeType: String!, httpMethod: StagedUploadHttpMethodType = PUT, fileSize: UnsignedInt64 }
  input FileCreateInput { alt: String, contentType: FileContentType, duplicateResolutionMode: FileCreateInputDuplicateResolutionMode = APPEND_UUID, filename: String, originalSource: String! }
  input FileUpdateInput { id: ID!, alt: String, filename: String, originalSource: String, previewImageSource: String, referencesToAdd: [ID!], referencesToRemove: [ID!] }
  type StagedUploadParameter { name: String!, value: String! }
  type StagedMediaUploadTarget { parameters: [StagedUploadParameter!]!, resourceUrl: String, url: String }
  type UserError { field: [String!], message: String! }
  type FilesUserError { code: String, field: [String!], message: String! }
  type StagedUploadsCreatePayload { stagedTargets: [StagedMediaUploadTarget!], userErrors: [UserError!]! }
  type FileError { code: String!, details: String, message: String }
  interface Node { id: ID! }
  interface File { id: ID!, alt: String, createdAt: String!, fileErrors: [FileError!]!, fileStatus: FileStatus! }
  type Image { url: String!, altText: String }
  type MediaImage implements Node & File { id: ID!, alt: String, createdAt: String!, fileErrors: [FileError!]!, fileStatus: FileStatus!, image: Image }
  type GenericFile implements Node & File { id: ID!, alt: String, createdAt: String!, fileErrors: [FileError!]!, fileStatus: FileStatus!, url: String }
  type Video implements Node & File { id: ID!, alt: String, createdAt: String!, fileErrors: [FileError!]!, fileStatus: FileStatus! }
  type Product implements Node { id: ID!, title: String! }
  type FileCreatePayload { files: [File!], userErrors: [FilesUserError!]! }
  type FileUpdatePayload { files: [File!], userErrors: [FilesUserError!]! }
  type Shop { id: ID!, name: String!, myshopifyDomain: String! }
  type Query { node(id: ID!): Node, nodes(ids: [ID!]!): [Node]!, product(id: ID!): Product, shop: Shop! }
  type Mutation {
    stagedUploadsCreate(input: [StagedUploadInput!]!): StagedUploadsCreatePayload
    fileCreate(files: [FileCreateInput!]!): FileCreatePayload
    fileUpdate(files: [FileUpdateInput!]!): FileUpdatePayload
  }
`;
const schema = buildSchema(SDL);

export interface ShopFile {
  id: string;
  __typename: 'MediaImage' | 'GenericFile' | 'Video';
  alt: string;
  filename: string;
  contentType: string;
  originalSource: string;
  sha256: string | null;
  bytes: number;
  polls: number;
  fail: string | null;
  products: string[];
}

export interface ShopRequest {
  path: string;
  headers: IncomingHttpHeaders;
  operation: string | null;
  variables: Record<string, unknown>;
  status: number;
}

export interface FakeShopify {
  url: string;
  token: string;
  products: Map<string, { id: string; title: string }>;
  files: Map<string, ShopFile>;
  requests: ShopRequest[];
  /** Staged uploads received: the form fields in order and the file's hash. */
  staged: Map<string, { fields: string[]; sha256: string; bytes: number; type: string }>;
  /** Polls a file stays UPLOADED/PROCESSING before it is READY (or FAILED). */
  processingPolls: number;
  /** Files whose filename matches fail processing with this error; names matching `reject` get userErrors. */
  failFilesMatching: RegExp;
  rejectFilesMatching: RegExp;
  /** The next GraphQL requests are answered with these HTTP errors, or THROTTLED ('throttled'). */
  failNext(answers: Array<{ status: number; headers?: Record<string, string>; body?: unknown } | 'throttled'>): void;
  /** How Shopify fetches an external originalSource (tests map the public URL to the app). */
  fetchExternal: (url: string) => Promise<Response>;
  close(): Promise<void>;
}

const COST = (available: number) => ({ requestedQueryCost: 12, actualQueryCost: 10, throttleStatus: { maximumAvailable: 1000, currentlyAvailable: available, restoreRate: 50 } });

export async function startFakeShopify(token: string): Promise<FakeShopify> {
  const injected: Array<{ status: number; headers?: Record<string, string>; body?: unknown } | 'throttled'> = [];
  let nextId = 1000;
  const fake = {
    token,
    products: new Map(),
    files: new Map(),
    requests: [],
    staged: new Map(),
    processingPolls: 2,
    failFilesMatching: /corrupt/,
    rejectFilesMatching: /reject/,
    fetchExternal: (url: string) => fetch(url),
  } as unknown as FakeShopify;

  const fileNode = (file: ShopFile) => {
    file.polls++;
    const status = file.polls > fake.processingPolls ? (file.fail ? 'FAILED' : 'READY') : file.polls > 1 ? 'PROCESSING' : 'UPLOADED';
    const url = status === 'READY' ? `https://cdn.shopify.com/s/files/1/0001/files/${file.filename}?v=${file.id.split('/').pop()}` : null;
    return {
      __typename: file.__typename,
      id: file.id,
      alt: file.alt,
      createdAt: '2026-11-24T12:00:00Z',
      fileStatus: status,
      fileErrors: status === 'FAILED' ? [{ code: 'MEDIA_PROCESSING_FAILED', message: file.fail, details: null }] : [],
      image: file.__typename === 'MediaImage' && url ? { url, altText: file.alt } : null,
      url,
    };
  };

  const root = {
    shop: () => ({ id: 'gid://shopify/Shop/1', name: 'Fake shop', myshopifyDomain: 'fake-shop.myshopify.com' }),
    product: ({ id }: { id: string }) => (fake.products.has(id) ? { __typename: 'Product', ...fake.products.get(id) } : null),
    node: ({ id }: { id: string }) => (fake.files.has(id) ? fileNode(fake.files.get(id)!) : null),
    nodes: ({ ids }: { ids: string[] }) => ids.map((id) => (fake.files.has(id) ? fileNode(fake.files.get(id)!) : null)),
    stagedUploadsCreate: ({ input }: { input: Array<{ filename: string; mimeType: string; resource: string; httpMethod: string; fileSize?: string }> }) => {
      const bad = input.findIndex((i) => i.httpMethod !== 'POST' || (i.resource === 'VIDEO' && !i.fileSize));
      if (bad >= 0) return { stagedTargets: null, userErrors: [{ field: ['input', String(bad)], message: 'fileSize is required for VIDEO; only POST targets here' }] };
      return {
        stagedTargets: input.map((i) => {
          const key = `tmp/${++nextId}/${i.filename}`;
          return {
            url: `${fake.url}/staged/${nextId}?X-Goog-Signature=secret-signature`,
            resourceUrl: `https://shopify-staged-uploads.storage.googleapis.com/${key}`,
            parameters: [
              { name: 'Content-Type', value: i.mimeType },
              { name: 'success_action_status', value: '201' },
              { name: 'acl', value: 'private' },
              { name: 'key', value: key },
              { name: 'policy', value: 'eyJjb25kaXRpb25zIjpbXX0=' },
            ],
          };
        }),
        userErrors: [],
      };
    },
    fileCreate: async ({ files }: { files: Array<{ alt?: string; contentType?: string; filename?: string; originalSource: string }> }) => {
      const errors = files.flatMap((f, i) => {
        if (fake.rejectFilesMatching.test(f.filename ?? '')) return [{ field: ['files', String(i), 'filename'], message: 'Filename is not allowed', code: 'INVALID_FILENAME' }];
        if ((f.alt ?? '').length > 512) return [{ field: ['files', String(i), 'alt'], message: 'Alt is too long (maximum is 512 characters)', code: 'ALT_VALUE_LIMIT_EXCEEDED' }];
        return [];
      });
      if (errors.length) return { files: null, userErrors: errors };
      const created: ShopFile[] = [];
      for (const f of files) {
        const typename = f.contentType === 'IMAGE' ? 'MediaImage' : f.contentType === 'VIDEO' ? 'Video' : 'GenericFile';
        const id = `gid://shopify/${typename}/${++nextId}`;
        let sha256: string | null = null;
        let bytes = 0;
        let fail: string | null = fake.failFilesMatching.test(f.filename ?? '') ? 'Image could not be processed because the file is corrupt' : null;
        const staged = /^https:\/\/shopify-staged-uploads\.storage\.googleapis\.com\/tmp\/(\d+)\//.exec(f.originalSource);
        if (staged) {
          const upload = fake.staged.get(staged[1]!);
          if (upload) ({ sha256, bytes } = upload);
          else fail = 'File could not be processed because the staged upload is missing';
        } else {
          const answer = await fake.fetchExternal(f.originalSource).catch(() => null);
          if (answer?.ok) {
            const body = Buffer.from(await answer.arrayBuffer());
            sha256 = createHash('sha256').update(body).digest('hex');
            bytes = body.length;
          } else fail = `File could not be downloaded from the source URL (${answer?.status ?? 'unreachable'})`;
        }
        const file: ShopFile = { id, __typename: typename, alt: f.alt ?? '', filename: f.filename ?? '', contentType: f.contentType ?? '', originalSource: f.originalSource, sha256, bytes, polls: 0, fail, products: [] };
        fake.files.set(id, file);
        created.push(file);
      }
      return { files: created.map((file) => ({ ...fileNode(file), __typename: file.__typename })), userErrors: [] };
    },
    fileUpdate: ({ files }: { files: Array<{ id: string; referencesToAdd?: string[] }> }) => {
      const errors = files.flatMap((f, i) => {
        const file = fake.files.get(f.id);
        if (!file) return [{ field: ['files', String(i), 'id'], message: `File id ${f.id} does not exist.`, code: 'FILE_DOES_NOT_EXIST' }];
        const missing = (f.referencesToAdd ?? []).find((p) => !fake.products.has(p));
        if (missing) return [{ field: ['files', String(i), 'referencesToAdd'], message: `Product id ${missing} does not exist.`, code: 'PRODUCT_DOES_NOT_EXIST' }];
        return [];
      });
      if (errors.length) return { files: null, userErrors: errors };
      for (const f of files) fake.files.get(f.id)!.products.push(...(f.referencesToAdd ?? []));
      return { files: files.map((f) => fileNode(fake.files.get(f.id)!)), userErrors: [] };
    },
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const url = new URL(req.url ?? '/', fake.url);
        const body = Buffer.concat(chunks);
        const reply = (status: number, json: unknown, headers: Record<string, string> = {}, operation: string | null = null, variables: Record<string, unknown> = {}) => {
          fake.requests.push({ path: url.pathname, headers: req.headers, operation, variables, status });
          res.writeHead(status, { 'Content-Type': 'application/json', ...headers }).end(typeof json === 'string' ? json : JSON.stringify(json));
        };
        const staged = /^\/staged\/(\d+)$/.exec(url.pathname);
        if (staged && req.method === 'POST') {
          // The target takes a multipart form: the parameters (in order), then the file last.
          const form = await new Request(fake.url, { method: 'POST', headers: { 'content-type': req.headers['content-type'] ?? '' }, body }).formData();
          const fields = [...form.keys()];
          const file = form.get('file');
          if (!(file instanceof Blob) || fields.at(-1) !== 'file' || !form.get('key') || !form.get('policy')) return reply(400, '<Error><Code>InvalidArgument</Code></Error>');
          const bytes = Buffer.from(await file.arrayBuffer());
          fake.staged.set(staged[1]!, { fields, sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length, type: file.type });
          return reply(201, `<PostResponse><Key>${String(form.get('key'))}</Key></PostResponse>`);
        }
        if (!/^\/admin\/api\/(\d{4}-\d{2}|unstable)\/graphql\.json$/.test(url.pathname) || req.method !== 'POST') return reply(404, { errors: 'Not Found' });
        if (req.headers['x-shopify-access-token'] !== fake.token) return reply(401, { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' });
        let request: { query?: string; variables?: Record<string, unknown>; operationName?: string };
        try {
          request = JSON.parse(body.toString('utf8'));
        } catch {
          return reply(400, { errors: 'Bad Request' });
        }
        const operation = /(?:query|mutation)\s+(\w+)/.exec(request.query ?? '')?.[1] ?? null;
        const planned = injected.shift();
        if (planned === 'throttled') {
          return reply(200, { errors: [{ message: 'Throttled', extensions: { code: 'THROTTLED', documentation: 'https://shopify.dev/api/usage/rate-limits' } }], extensions: { cost: { ...COST(0), requestedQueryCost: 10, actualQueryCost: null, throttleStatus: { maximumAvailable: 1000, currentlyAvailable: 5, restoreRate: 100 } } } }, {}, operation, request.variables);
        }
        if (planned) return reply(planned.status, planned.body ?? { errors: 'injected' }, planned.headers, operation, request.variables);
        const result = await graphql({ schema, source: request.query ?? '', variableValues: request.variables, rootValue: root });
        return reply(200, { ...result, extensions: { cost: COST(980) } }, {}, operation, request.variables ?? {});
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.failNext = (answers) => void injected.push(...answers);
  fake.close = () => new Promise((resolve) => server.close(() => resolve()));
  return fake;
}
