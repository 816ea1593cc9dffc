// Re-encoding an upload with its EXIF orientation applied, in its own format, so the stored file is
// upright in every viewer (what was re-encoded is said by ProcessedImage.orientationApplied).
import type { Metadata, Sharp, SharpOptions } from 'sharp';
import { loadSharp } from '../../platform/sharp.js';
import type { ImageFormat } from './sniff.js';

/** Re-encoding after applying EXIF orientation: same format, high quality. */
const REENCODE_QUALITY = 92;

/** The full-size image with its EXIF orientation applied, in its own format; metadata except ICC dropped. */
export async function reencodeOriented(body: Buffer, input: SharpOptions, format: ImageFormat, meta: Metadata): Promise<Buffer> {
  const sharp = await loadSharp();
  let pipeline: Sharp = sharp(body, input).rotate();
  if (meta.hasProfile) pipeline = pipeline.keepIccProfile();
  switch (format) {
    case 'jpeg':
      return pipeline.jpeg({ quality: REENCODE_QUALITY, chromaSubsampling: meta.chromaSubsampling === '4:4:4' ? '4:4:4' : '4:2:0' }).toBuffer();
    case 'png':
      // Lossless; 16-bit stays 16-bit.
      if (meta.depth === 'ushort') pipeline = pipeline.toColourspace(meta.channels <= 2 ? 'grey16' : 'rgb16');
      return pipeline.png().toBuffer();
    case 'webp':
      return pipeline.webp(webpIsLossless(body) ? { lossless: true } : { quality: REENCODE_QUALITY }).toBuffer();
    case 'avif':
      return pipeline.avif({ quality: 80 }).toBuffer();
    case 'tiff':
      return pipeline.tiff({ compression: 'lzw' }).toBuffer();
    default:
      return pipeline.png().toBuffer();
  }
}

/** Whether the first image chunk of a WebP (RIFF) file is VP8L, the lossless codec. */
function webpIsLossless(body: Buffer): boolean {
  for (let offset = 12; offset + 8 <= body.length; ) {
    const fourcc = body.toString('latin1', offset, offset + 4);
    if (fourcc === 'VP8L') return true;
    if (fourcc === 'VP8 ') return false;
    offset += 8 + body.readUInt32LE(offset + 4) + (body.readUInt32LE(offset + 4) % 2);
  }
  return false;
}
