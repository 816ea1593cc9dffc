// How a request becomes what providers get: the style preset as prompt text, the orientation as
// each provider's image size, and the title of each variation. docs/rest-api.md "Generation" lists the same.
import type { Orientation } from './providers/provider.js';

export const ORIENTATIONS = ['landscape', 'portrait', 'square'] as const satisfies readonly Orientation[];

/** Prompt text of each preset: the spec's four, and the premium presets this service ships. */
export const STYLE_PROMPTS: Readonly<Record<string, string>> = {
  professional: 'professional photograph, clean composition, balanced natural lighting, sharp focus, high detail',
  cinematic: 'cinematic film still, dramatic lighting, shallow depth of field, widescreen framing, rich colour grading',
  minimalist: 'minimalist, simple composition, generous negative space, muted limited palette, clean lines',
  cyberpunk: 'cyberpunk, neon-lit futuristic city at night, vivid magenta and cyan glow, high-tech details, wet reflective streets',
  noir: 'film noir, black and white, hard low-key lighting, deep shadows, 1940s mood',
  watercolor: 'watercolour painting, soft washes of colour, visible paper texture, loose brush strokes',
  'vintage-film': 'vintage 35mm film photograph, warm faded colours, visible grain, slight vignette',
  anime: 'anime illustration, clean line art, cel shading, vibrant colours, expressive characters',
};

/** The prompt a provider gets: the caller's words, then the preset's (a premium preset the operator named itself reads as its name). */
export function styledPrompt(prompt: string, style: { slug: string; name: string }): string {
  const text = STYLE_PROMPTS[style.slug] ?? `${style.name.toLowerCase()} style`;
  return `${prompt.trim()}. Style: ${text}`;
}

/** A variation's title: the preset's name and its number. */
export function variationTitle(style: { name: string }, index: number): string {
  return `${style.name} variation ${index + 1}`;
}

export interface Size {
  width: number;
  height: number;
}

/**
 * Pollinations and FLUX (bfl) take any size: multiples of 16 within both APIs' limits (Pollinations
 * at most 1512 a side, FLUX at most 4 megapixels), about one megapixel, 16:9-ish for landscape.
 */
export const FREE_SIZES: Readonly<Record<Orientation, Size>> = {
  landscape: { width: 1344, height: 768 },
  portrait: { width: 768, height: 1344 },
  square: { width: 1024, height: 1024 },
};

/** The OpenAI images API takes a fixed set of sizes per model family; other (compatible) models get FREE_SIZES. */
export function openAiSize(model: string, orientation: Orientation): string {
  const sizes: Record<Orientation, string> = model.startsWith('gpt-image')
    ? { landscape: '1536x1024', portrait: '1024x1536', square: '1024x1024' }
    : model === 'dall-e-3'
      ? { landscape: '1792x1024', portrait: '1024x1792', square: '1024x1024' }
      : model === 'dall-e-2'
        ? { landscape: '1024x1024', portrait: '1024x1024', square: '1024x1024' }
        : Object.fromEntries(Object.entries(FREE_SIZES).map(([o, s]) => [o, `${s.width}x${s.height}`])) as Record<Orientation, string>;
  return sizes[orientation];
}
