// HTTP answers for stored job files: one file with the right headers (ETag, ranges and If-Range as
// every file route, see send-blob.ts; nosniff, SVG kept inert) and a streamed ZIP of a job.
import type { Request, Response } from 'express';
import type { Context } from '../graphql/context.js';
import { writeZip } from '../platform/storage/zip.js';
import { sendBlob } from './send-blob.js';
import { dispositionHeader } from './download-name.js';

export async function sendJobFile(context: Context, jobId: number, filename: string, req: Request, res: Response): Promise<void> {
  const { jobFiles, blobs } = context.services;
  const asset = await jobFiles.asset(context.actor!, jobId, filename);
  const opened = await jobFiles.open(asset);
  await sendBlob(req, res, blobs, opened, {
    'Content-Type': asset.contentType,
    'Content-Disposition': dispositionHeader('inline', asset.filename, asset.contentType),
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'private, max-age=86400',
    // An SVG is a document that can run script: served from our origin it must stay inert.
    ...(asset.contentType === 'image/svg+xml' ? { 'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox" } : {}),
  });
}

/**
 * The ZIP is written as it is sent, so its length is not known up front: it answers 200 without
 * Content-Length and `Accept-Ranges: none`, and a Range header is ignored (a resumed download starts over).
 */
export async function sendJobArchive(context: Context, jobId: number, res: Response): Promise<void> {
  const entries = await context.services.jobFiles.archiveEntries(context.actor!, jobId);
  res.status(200).set({
    'Content-Type': 'application/zip',
    'Content-Disposition': dispositionHeader('attachment', `job-${jobId}`, 'application/zip'),
    'Cache-Control': 'private, no-store',
    'Accept-Ranges': 'none',
  });
  await writeZip(entries, res);
}
