// Images made on the fly for tests.
import sharp from 'sharp';

/** A photo-like image: a colour field with a few shapes and some noise, so it compresses like a photo. */
export async function photo(colour: string, options: { width?: number; height?: number; format?: 'jpeg' | 'png' | 'webp'; seed?: number } = {}): Promise<Buffer> {
  const { width = 640, height = 480, format = 'jpeg', seed = 1 } = options;
  const shapes = Array.from({ length: 6 }, (_, i) => {
    const x = ((seed * 97 + i * 131) % width) | 0;
    const y = ((seed * 53 + i * 71) % height) | 0;
    return `<circle cx="${x}" cy="${y}" r="${20 + ((seed + i) % 5) * 8}" fill="rgba(255,255,255,0.25)"/>`;
  }).join('');
  const svg = Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="${colour}"/>${shapes}</svg>`);
  return sharp(svg)[format]().toBuffer();
}

/**
 * A photo-like scene: a gradient under forty overlapping shapes of seeded colours, softened, as
 * JPEG. Unlike photo()'s flat colour, its 16x16 blocks differ, so perceptual hashes of two seeds are
 * as unrelated as two photographs', while the same seed always gives the same picture.
 */
export async function scene(seed: number, width = 800, height = 600): Promise<Buffer> {
  let state = seed >>> 0;
  const random = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const colour = () => `rgb(${(random() * 255) | 0},${(random() * 255) | 0},${(random() * 255) | 0})`;
  let shapes = '';
  for (let i = 0; i < 40; i++) {
    const kind = random();
    const opacity = (0.3 + random() * 0.7).toFixed(2);
    if (kind < 0.4) shapes += `<circle cx="${random() * width}" cy="${random() * height}" r="${10 + random() * 120}" fill="${colour()}" fill-opacity="${opacity}"/>`;
    else if (kind < 0.8) {
      shapes += `<rect x="${random() * width}" y="${random() * height}" width="${20 + random() * 250}" height="${20 + random() * 200}" fill="${colour()}" fill-opacity="${opacity}" transform="rotate(${random() * 90} ${random() * width} ${random() * height})"/>`;
    } else shapes += `<polygon points="${[0, 1, 2].map(() => `${random() * width},${random() * height}`).join(' ')}" fill="${colour()}" fill-opacity="${opacity}"/>`;
  }
  const background = `<linearGradient id="g" x1="0" y1="0" x2="${random().toFixed(2)}" y2="1"><stop offset="0" stop-color="${colour()}"/><stop offset="1" stop-color="${colour()}"/></linearGradient>`;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><defs>${background}</defs><rect width="100%" height="100%" fill="url(#g)"/>${shapes}</svg>`;
  return sharp(Buffer.from(svg)).blur(1.2).jpeg({ quality: 92 }).toBuffer();
}

/** A multipart body for fetch: fields as text, the file under `file`. */
export function form(file: { body: Buffer; name: string; type?: string } | null, fields: Record<string, string> = {}, fileField = 'file'): FormData {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) data.append(name, value);
  if (file) data.append(fileField, new Blob([new Uint8Array(file.body)], { type: file.type ?? 'application/octet-stream' }), file.name);
  return data;
}
