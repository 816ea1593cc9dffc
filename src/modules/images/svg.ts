// SVG is never stored or served: it is rasterised (to RGBA, then stored as PNG) with a size cap and
// a render timeout. librsvg does not fetch external resources from a buffer and refuses XML entity
// amplification; what its rendering could still cost without bound (filters, entities, gzipped
// data: URLs) is refused before a pixel is rendered.
import type { SharpOptions } from 'sharp';
import { loadSharp } from '../../platform/sharp.js';
import { boundedInside, decode, ImageRejected, readHeader, tooManyPixels, type Raster } from './decode.js';

/** Longest side an SVG is rasterised to. */
const SVG_MAX_SIDE = 2048;
const SVG_TIMEOUT_SECONDS = 10;

/**
 * Rasterises an SVG to RGBA, rendered directly at a size that fits inside SVG_MAX_SIDE. Refused
 * before any rendering: filters and entity declarations (refuseCostlySvg), and a declared size
 * (width and height, or the viewBox, as librsvg reads them from the header at 72 dpi) over maxPixels, as
 * for every other format.
 */
export async function rasteriseSvg(body: Buffer, maxPixels: number): Promise<Raster> {
  refuseCostlySvg(body);
  const sharp = await loadSharp();
  const input: SharpOptions = { limitInputPixels: maxPixels };
  const { width, height } = await readHeader(body, input, 'svg');
  if (width * height > maxPixels) throw tooManyPixels(`${width}x${height}`, maxPixels);
  const scale = Math.min(1, SVG_MAX_SIDE / Math.max(width, height));
  const density = Math.min(100_000, Math.max(1, 72 * scale));
  return decode(
    () =>
      sharp(body, { ...input, density })
        .timeout({ seconds: SVG_TIMEOUT_SECONDS })
        .resize(boundedInside(SVG_MAX_SIDE))
        .ensureAlpha()
        .toColourspace('srgb')
        .raw()
        .toBuffer({ resolveWithObject: true }),
    'svg',
    maxPixels,
  );
}

/**
 * SVG whose rendering cost nothing bounds is refused before librsvg renders a pixel: filter effects
 * (a 300-byte feTurbulence or a huge feGaussianBlur cost seconds of CPU at any size), CSS filter
 * functions, and entity declarations (whose text could spell them out of this check's sight).
 * Character references and CSS escapes are read as what they spell first, CSS comments are
 * dropped (`filter/**\/: blur(...)` is a filter declaration), and what data: URLs carry (an
 * <image> of an SVG, an xml-stylesheet of CSS, which librsvg loads) is checked the same way.
 */
function refuseCostlySvg(body: Buffer, depth = 0): void {
  const text = body.toString('utf8');
  if (/<!ENTITY/i.test(text)) throw new ImageRejected('SVG with entity declarations (<!ENTITY) is not accepted');
  const spelled = text
    .replace(/&#x([0-9a-f]{1,6});?/gi, (_match, hex: string) => codePoint(Number.parseInt(hex, 16)))
    .replace(/&#(\d{1,7});?/g, (_match, digits: string) => codePoint(Number(digits)))
    .replace(/\\([0-9a-f]{1,6})\s?/gi, (_match, hex: string) => codePoint(Number.parseInt(hex, 16)))
    .replace(/\\(.)/g, '$1')
    .replace(/\/\*[\s\S]*?(?:\*\/|$)/g, '');
  if (/<(?:[\w.-]+:)?(?:filter[\s/>]|fe[A-Z])/.test(spelled) || /filter\s*[:=]/i.test(spelled)) {
    throw new ImageRejected('SVG filters (filter, feTurbulence, feGaussianBlur, feConvolveMatrix ...) are not accepted: their rendering cost has no bound; flatten the image (PNG) first');
  }
  // The media type and parameters are short (bounded, so a text of many "data:" is read once).
  for (const [, meta, payload] of spelled.matchAll(/data:([^,"'()]{0,200}),([^"'()]*)/gi)) {
    // Base64 when the parameters say so anywhere (a plain payload read as base64 too is harmless: its text was read above).
    const base64 = /;\s*base64/i.test(meta!);
    // Plain text is part of this text, checked above; only what decoding reveals is read again.
    if (!base64 && !payload!.includes('%')) continue;
    if (depth >= MAX_DATA_URL_DEPTH) throw new ImageRejected(`SVG with data: URLs nested more than ${MAX_DATA_URL_DEPTH} deep is not accepted`);
    const bytes = dataUrlBytes(base64, payload!);
    // Compressed, it could be a gzipped SVG (librsvg inflates one) that no text check sees into.
    if (bytes[0] === 0x1f && bytes[1] === 0x8b) throw new ImageRejected('SVG with a compressed (gzip) data: URL is not accepted');
    // A raster (PNG, JPEG ...: binary, with NUL bytes) carries no filter; text (SVG, CSS) is checked.
    if (!bytes.includes(0)) refuseCostlySvg(bytes, depth + 1);
  }
}

/** Data URLs inside data URLs inside the SVG: deeper is refused (each level is decoded and read again). */
const MAX_DATA_URL_DEPTH = 3;

/** The bytes a data: URL carries (percent-decoded, then base64-decoded when it says so). */
function dataUrlBytes(base64: boolean, payload: string): Buffer {
  const bytes = Buffer.from(payload.replace(/%([0-9a-f]{2})/gi, (_match, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))), 'latin1');
  return base64 ? Buffer.from(bytes.toString('latin1').replace(/\s+/g, ''), 'base64') : bytes;
}

function codePoint(code: number): string {
  return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '';
}
