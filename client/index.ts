// A small typed client for frontends and scripts. The documents and their result types come from
// graphql-codegen (`npm run codegen` writes client/generated/); `request` infers both from the document.
//   const client = new ImageServiceClient({ url: 'http://localhost:4000', apiKey });
//   const { viewer } = await client.request(ViewerDocument);
//   for await (const { jobUpdated } of client.subscribe(JobProgressDocument, { id: jobId })) console.log(jobUpdated.state);
// Subscriptions run over graphql-ws on ws(s)://<host>/graphql, the key in the connection parameters;
// one socket per client, opened at the first subscription and closed by `close()`.
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';
import { createClient, type Client as SocketClient } from 'graphql-ws';

export * from './generated/graphql.js';

export interface ClientOptions {
  /** Base URL of the service, e.g. http://localhost:4000 */
  url: string;
  apiKey?: string;
  fetch?: typeof fetch;
  /** A WebSocket class for subscriptions where the runtime has none (Node 20: `import WebSocket from 'ws'`). */
  webSocketImpl?: unknown;
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

/** The service could not be reached at all (refused, unknown host, reset): one line saying where and why. */
export class ServiceUnreachableError extends Error {
  constructor(
    readonly url: string,
    cause: unknown,
  ) {
    const reason = (cause as { cause?: { code?: string; message?: string } }).cause;
    super(`cannot reach the service at ${url}: ${reason?.code ?? reason?.message ?? String((cause as Error).message ?? cause)}`, { cause });
    this.name = 'ServiceUnreachableError';
  }
}

type VariablesArgs<TVariables> = TVariables extends Record<string, never> ? [] : [TVariables];

export class ImageServiceClient {
  private readonly fetch: typeof fetch;
  private readonly base: string;
  private socket?: SocketClient;

  constructor(private readonly options: ClientOptions) {
    this.fetch = options.fetch ?? globalThis.fetch;
    this.base = options.url.replace(/\/$/, '');
  }

  async request<TResult, TVariables>(document: TypedDocumentNode<TResult, TVariables>, ...[variables]: VariablesArgs<TVariables>): Promise<TResult> {
    const response = await this.post(document, variables);
    const body = (await response.json()) as { data?: TResult; errors?: GraphQLErrorEntry[] };
    if (body.errors?.length) throw new GraphQLRequestError(body.errors, response.status);
    if (!body.data) throw new GraphQLRequestError([{ message: `no data in the answer (HTTP ${response.status})` }], response.status);
    return body.data;
  }

  /**
   * A subscription's results as they come; the loop ends when the server completes it (a job's
   * progress ends with its final state). An error answer (a wrong key, another account's job) is
   * thrown as GraphQLRequestError; leaving the loop early ends the subscription.
   */
  async *subscribe<TResult, TVariables>(document: TypedDocumentNode<TResult, TVariables>, ...[variables]: VariablesArgs<TVariables>): AsyncGenerator<TResult> {
    const results = this.connect().iterate<TResult>({ query: print(document), variables: variables as Record<string, unknown> | undefined });
    try {
      for await (const result of results) {
        if (result.errors?.length) throw new GraphQLRequestError(result.errors as GraphQLErrorEntry[], 200);
        if (result.data) yield result.data;
      }
    } catch (error) {
      if (Array.isArray(error)) throw new GraphQLRequestError(error as GraphQLErrorEntry[], 200);
      throw error;
    } finally {
      await results.return?.(undefined);
    }
  }

  /** Closes the subscription socket, if one was opened. */
  async close(): Promise<void> {
    await this.socket?.dispose();
    this.socket = undefined;
  }

  private connect(): SocketClient {
    this.socket ??= createClient({
      url: `${this.base.replace(/^http/, 'ws')}/graphql`,
      connectionParams: this.options.apiKey ? { 'X-API-Key': this.options.apiKey } : {},
      ...(this.options.webSocketImpl ? { webSocketImpl: this.options.webSocketImpl } : {}),
      lazy: true,
      retryAttempts: 0,
    });
    return this.socket;
  }

  private async post<TResult, TVariables>(document: TypedDocumentNode<TResult, TVariables>, variables: unknown): Promise<Response> {
    const url = `${this.base}/graphql`;
    return this.fetch(url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/graphql-response+json, application/json',
        ...(this.options.apiKey ? { 'X-API-Key': this.options.apiKey } : {}),
      },
      body: JSON.stringify({ query: print(document), variables }),
    }).catch((error: unknown) => {
      throw new ServiceUnreachableError(this.base, error);
    });
  }
}
