import type { Response } from 'express';

/** JSON with `success` first, as every documented response has it. */
export function sendJson(res: Response, status: number, body: { success: boolean } & Record<string, unknown>): void {
  sendJsonText(res, status, JSON.stringify(body));
}

/** An answer already in JSON text (made by sendJson's rules). */
export function sendJsonText(res: Response, status: number, json: string): void {
  res.status(status).type('application/json').send(json);
}

export function sendError(res: Response, status: number, message: string, headers: Record<string, string> = {}): void {
  res.set(headers);
  sendJson(res, status, { success: false, error: message });
}
