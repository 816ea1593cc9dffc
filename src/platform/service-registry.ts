// The services of one process as the layers that use them see them: GraphQL resolvers
// (ctx.services), the HTTP routers, the bot. Built by src/services.ts, which calls each module's
// setup function.
//
// Typed by declaration merging: this file holds the platform's members, and each module's
// <module>.setup.ts adds the members it builds (`declare module '.../service-registry.js'`). So the
// type is complete wherever the program is, yet nothing that reads it imports the composition root
// or the modules' internals, and no import circle runs through src/services.ts. (A type composed in
// one place from every module's exports would have to import them all, which is the circle again.)
import type { Database } from './database/database.js';
import type { EventBus } from './events.js';
import type { SafeFetcher } from './http/safe-fetch.js';
import type { Logger } from './logger.js';
import type { BlobStore } from './storage/blob-store.js';
import type { UrlSigner } from './url-signer.js';

export interface Services {
  db: Database;
  events: EventBus;
  logger: Logger;
  blobs: BlobStore;
  /** Every outgoing request of the service: private addresses refused, size and time limited. */
  fetcher: SafeFetcher;
  /** Signs and checks the file links handed out (library, community, wiki, transformations). */
  signer: UrlSigner;
  adminToken: string;
}

/** What any image a caller sends or names may weigh: bytes and decoded pixels. */
export interface UploadLimits {
  maxBytes: number;
  maxPixels: number;
}
