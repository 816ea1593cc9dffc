// A one-page site whose page shows one PNG of noise (a few hundred KB that do not compress), for
// tests that scrape it and then read the job's file whole, in ranges or in a ZIP.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';

export interface PhotoSite {
  url: string;
  png: Buffer;
  close(): Promise<void>;
}

export async function startPhotoSite(): Promise<PhotoSite> {
  const noise = Buffer.alloc(300 * 300 * 3);
  for (let i = 0; i < noise.length; i++) noise[i] = (i * 7919 + (i >> 5) * 104729) % 251;
  const png = await sharp(noise, { raw: { width: 300, height: 300, channels: 3 } }).png().toBuffer();
  const site: Server = createServer((req, res) => {
    if (req.url === '/photo.png') return res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': png.length }).end(png);
    if (req.url === '/robots.txt') return res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><html><body><img src="/photo.png"></body></html>');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(site.address() as AddressInfo).port}`,
    png,
    close: () => new Promise<void>((resolve) => site.close(() => resolve())),
  };
}
