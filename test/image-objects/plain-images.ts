// Images that carry too little information for a perceptual hash, made with sharp: flat colours,
// linear and radial gradients, a white page with one dot, tiny images. The same-image tests
// (same-image.unit.test.ts, same-image.test.ts) use them beside the photo-like scenes that must
// keep matching.
import sharp from 'sharp';

/** A solid colour, PNG unless said otherwise. */
export function flat(colour: string, options: { width?: number; height?: number; format?: 'png' | 'jpeg' } = {}): Promise<Buffer> {
  const { width = 640, height = 480, format = 'png' } = options;
  return sharp({ create: { width, height, channels: 3, background: colour } })[format]().toBuffer();
}

const svg = (width: number, height: number, body: string) => Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${body}</svg>`);

/** A linear gradient from `from` to `to` towards (x2, y2) (0-1 of the box), as JPEG of `quality`. */
export function gradient(from: string, to: string, x2: number, y2: number, quality = 90): Promise<Buffer> {
  const fill = `<defs><linearGradient id="g" x1="0" y1="0" x2="${x2}" y2="${y2}"><stop offset="0" stop-color="${from}"/><stop offset="1" stop-color="${to}"/></linearGradient></defs><rect width="100%" height="100%" fill="url(#g)"/>`;
  return sharp(svg(800, 600, fill)).jpeg({ quality }).toBuffer();
}

/** A radial gradient, centre `inner`, rim `outer`, centred at (cx, cy) (0-1 of the box). */
export function radial(inner: string, outer: string, cx = 0.5, cy = 0.5): Promise<Buffer> {
  const fill = `<defs><radialGradient id="g" cx="${cx}" cy="${cy}" r="0.8"><stop offset="0" stop-color="${inner}"/><stop offset="1" stop-color="${outer}"/></radialGradient></defs><rect width="100%" height="100%" fill="url(#g)"/>`;
  return sharp(svg(800, 600, fill)).jpeg().toBuffer();
}

/** A white 1000 x 1400 page with one black dot of radius `r` px at (x, y). */
export function pageWithDot(r: number, x = 600, y = 300): Promise<Buffer> {
  return sharp(svg(1000, 1400, `<rect width="100%" height="100%" fill="white"/><circle cx="${x}" cy="${y}" r="${r}" fill="black"/>`)).png().toBuffer();
}

/** A tiny image of seeded noise (busy, but `side` x `side` px), as PNG. */
export function tinyNoise(side: number, seed = 1): Promise<Buffer> {
  let state = seed >>> 0;
  const pixels = Buffer.alloc(side * side * 3);
  for (let i = 0; i < pixels.length; i++) pixels[i] = (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) >>> 24;
  return sharp(pixels, { raw: { width: side, height: side, channels: 3 } }).png().toBuffer();
}
