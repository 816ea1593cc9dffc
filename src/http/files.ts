// HTTP answers for stored job files: one file with the right headers (ETag, ranges, nosniff, SVG
// kept inert) and a streamed ZIP of a job.
import { pipeline } from 'node:stream/promises';
import type { Request, Response } from 'express';
import type { Context } from '../graphql/context.js';
import { writeZip } from '../platform/storage/zip.js';
import { RangeNotSatisfiable } from '../platform/storage/blob-store.js';

export async function sendJobFile(context: Context, jobId: number, filename: string, req: Request, res: Response): Promise<void> {
  const { jobFiles, blobs } = context.services;
  const asset = await jobFiles.asset(context.actor!, jobId, filename);
  const info = await blobs.head(asset.storageKey);
  const etag = info ? `"${info.etag}"` : undefined;
  res.set({
    'Content-Type': asset.contentType,
    'Content-Disposition': `inline; filename="${asset.filename.replace(/"/g, '')}"`,
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'private, max-age=86400',
    'Accept-Ranges': 'bytes',
    // An SVG is a document that can run script: served from our origin it must stay inert.
    ...(asset.contentType === 'image/svg+xml' ? { 'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox" } : {}),
    ...(etag ? { ETag: etag } : {}),
  });
  if (etag && req.get('if-none-match')?.split(/\s*,\s*/).includes(etag)) {
    res.status(304).end();
    return;
  }
  const ranges = info ? req.range(info.size) : undefined;
  if (ranges === -1) throw new RangeNotSatisfiable(info!.size);
  const range = Array.isArray(ranges) && ranges.length === 1 ? { start: ranges[0]!.start, end: ranges[0]!.end } : undefined;
  const opened = await jobFiles.open(asset, range);
  if (opened.range) {
    res.status(206).set({ 'Content-Range': `bytes ${opened.range.start}-${opened.range.end}/${opened.info.size}`, 'Content-Length': String(opened.range.end - opened.range.start + 1) });
  } else {
    res.status(200).set('Content-Length', String(opened.info.size));
  }
  // pipeline closes the blob when the client goes away at any moment (also before piping starts).
  await pipeline(opened.body, res).catch(() => opened.body.destroy());
}

export async function sendJobArchive(context: Context, jobId: number, res: Response): Promise<void> {
  const entries = await context.services.jobFiles.archiveEntries(context.actor!, jobId);
  res.status(200).set({
    'Content-Type': 'application/zip',
    'Content-Disposition': `attachment; filename="job-${jobId}.zip"`,
    'Cache-Control': 'private, no-store',
  });
  await writeZip(entries, res);
}
