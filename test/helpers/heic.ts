// The committed HEIC fixtures (test/fixtures/heic/, its README says how they were made) and broken
// HEICs made from them, for the HEIC decoding tests (test/images) and the upload route's (test/media).
import { readFileSync } from 'node:fs';

export const heicFixture = (name: string) => readFileSync(new URL(`../fixtures/heic/${name}`, import.meta.url));

/** The fixture cut in half, and a valid-looking HEIC header followed by noise. */
export function brokenHeics(): Array<[string, Buffer]> {
  const heic = heicFixture('scene.heic');
  const noise = Buffer.from(Array.from({ length: 4000 }, (_, i) => (i * 7919 + 13) % 256));
  const mdat = heic.indexOf('mdat');
  return [
    ['truncated', heic.subarray(0, heic.length / 2)],
    ['a HEIC header followed by garbage', Buffer.concat([heic.subarray(0, 32), noise])],
    // The container parses; the HEVC stream does not decode.
    ['zeroed image data', Buffer.concat([heic.subarray(0, mdat + 4), Buffer.alloc(heic.length - mdat - 4)])],
  ];
}
