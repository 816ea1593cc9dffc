// The HTTP server of the Express application, its requests and responses made with Express's
// prototypes from the start. Express gives every request and response its own prototypes with
// Object.setPrototypeOf (app.handle). Changing the prototype of an object Node's HTTP code has
// already made and keeps using sends that code down slow paths for the rest of the request: about
// 0.25 ms of CPU per request on this project's 2-core machines, more than Node's own HTTP work
// (bench/http-server.bench.ts). Made with those prototypes, the objects keep them: Express's
// setPrototypeOf finds the prototype already in place and changes nothing. If Node's constructors
// ever become classes (which cannot be called so), the server is a plain one and the swap returns.
import { createServer, IncomingMessage, ServerResponse, type RequestListener, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type express from 'express';

/** Node's two constructors are plain functions (Node 20 to 24); a class could not be called so. */
const callable = (constructor: unknown) => typeof constructor === 'function' && !/^class\b/.test(Function.prototype.toString.call(constructor));
export const PROTOTYPES_PRESET = callable(IncomingMessage) && callable(ServerResponse);

type Construct = (this: unknown, ...args: unknown[]) => void;

export function createAppServer(app: express.Express): Server {
  const listener = app as unknown as RequestListener;
  if (!PROTOTYPES_PRESET) return createServer(listener);
  // Node makes each request's objects with `new` on these; their prototype objects are Express's own
  // (app.request and app.response, which inherit from IncomingMessage's and ServerResponse's).
  // Reflect.construct with a new target measured slower than Express's swap; calling the
  // constructor on the new object does not.
  function AppRequest(this: unknown, socket: Socket) {
    (IncomingMessage as unknown as Construct).call(this, socket);
  }
  AppRequest.prototype = app.request;
  function AppResponse(this: unknown, req: IncomingMessage, options?: unknown) {
    (ServerResponse as unknown as Construct).call(this, req, options);
  }
  AppResponse.prototype = app.response;
  return createServer({ IncomingMessage: AppRequest as unknown as typeof IncomingMessage, ServerResponse: AppResponse as unknown as typeof ServerResponse }, listener);
}
