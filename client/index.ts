// A small typed client for frontends and scripts. The documents and their result types come from
// graphql-codegen (`npm run codegen` writes client/generated/); `request` infers both from the document.
//   const client = new ImageServiceClient({ url: 'http://localhost:4000', apiKey });
//   const { viewer } = await client.request(ViewerDocument);
// Subscriptions: use graphql-ws's createClient with the same documents on ws://<host>/graphql and
// connectionParams { 'X-API-Key': apiKey }.
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';

export * from './generated/graphql.js';

export interface ClientOptions {
  /** Base URL of the service, e.g. http://localhost:4000 */
  url: string;
  apiKey?: string;
  fetch?: typeof fetch;
}

export interface GraphQLErrorEntry {
  message: string;
  path?: Array<string | number>;
  extensions?: { code?: string; status?: number; field?: string };
}

export class GraphQLRequestError extends Error {
  constructor(
    readonly errors: GraphQLErrorEntry[],
    readonly httpStatus: number,
  ) {
    super(errors.map((e) => e.message).join('; '));
    this.name = 'GraphQLRequestError';
  }
}

export class ImageServiceClient {
  private readonly fetch: typeof fetch;

  constructor(private readonly options: ClientOptions) {
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  async request<TResult, TVariables>(document: TypedDocumentNode<TResult, TVariables>, ...[variables]: TVariables extends Record<string, never> ? [] : [TVariables]): Promise<TResult> {
    const response = await this.fetch(`${this.options.url.replace(/\/$/, '')}/graphql`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/graphql-response+json, application/json',
        ...(this.options.apiKey ? { 'X-API-Key': this.options.apiKey } : {}),
      },
      body: JSON.stringify({ query: print(document), variables }),
    });
    const body = (await response.json()) as { data?: TResult; errors?: GraphQLErrorEntry[] };
    if (body.errors?.length) throw new GraphQLRequestError(body.errors, response.status);
    if (!body.data) throw new GraphQLRequestError([{ message: `no data in the answer (HTTP ${response.status})` }], response.status);
    return body.data;
  }
}
