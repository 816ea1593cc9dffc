import type { Response } from 'express';

/** JSON with `success` first, as every documented response has it. */
export function sendJson(res: Response, status: number, body: { success: boolean } & Record<string, unknown>): void {
  sendJsonText(res, status, JSON.stringify(body));
}

/** An answer already in JSON text (made by sendJson's rules). */
export function sendJsonText(res: Response, status: number, json: string): void {
  const method = res.req.method;
  if (method === 'GET' || method === 'HEAD') {
    // Express's send adds the ETag and answers If-None-Match with 304.
    res.status(status).type('application/json').send(json);
    return;
  }
  // The answer to a write carries no ETag (a conditional request is a read's), so Express's send,
  // which hashes every body for one, is not needed; compression still applies (it reads the length).
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(json));
  res.end(json);
}

export function sendError(res: Response, status: number, message: string, headers: Record<string, string> = {}): void {
  res.set(headers);
  sendJson(res, status, { success: false, error: message });
}
