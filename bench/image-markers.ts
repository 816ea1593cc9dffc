// Distinct bytes for the same picture: benchmarks that upload or crawl many images need each one
// unique (the service stores identical bytes once), so a marker goes where each format allows
// extra data that every reader skips.
import { crc32 } from 'node:zlib';

export type MarkedFormat = 'jpeg' | 'png' | 'webp';

/** The base bytes with a unique marker placed where the format allows extra data. */
export function withMarker(format: MarkedFormat, base: Buffer, marker: string): Buffer {
  const text = Buffer.from(marker, 'latin1');
  if (format === 'jpeg') {
    // COM segment right after SOI: FF FE, then a big-endian length that counts itself.
    const head = Buffer.from([0xff, 0xfe, 0, 0]);
    head.writeUInt16BE(text.length + 2, 2);
    return Buffer.concat([base.subarray(0, 2), head, text, base.subarray(2)]);
  }
  if (format === 'png') {
    // tEXt chunk just before IEND (the last 12 bytes): length, type, keyword\0text, CRC of type+data.
    const data = Buffer.concat([Buffer.from('Comment\0', 'latin1'), text]);
    const typeAndData = Buffer.concat([Buffer.from('tEXt', 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(typeAndData));
    return Buffer.concat([base.subarray(0, base.length - 12), length, typeAndData, crc, base.subarray(base.length - 12)]);
  }
  // WebP: an unknown chunk (readers skip those) after the image, and the RIFF size fixed to match.
  const padded = text.length % 2 ? Buffer.concat([text, Buffer.alloc(1)]) : text;
  const chunk = Buffer.alloc(8);
  chunk.write('BNCH', 0, 'latin1');
  chunk.writeUInt32LE(text.length, 4);
  const out = Buffer.concat([base, chunk, padded]);
  out.writeUInt32LE(out.length - 8, 4);
  return out;
}
