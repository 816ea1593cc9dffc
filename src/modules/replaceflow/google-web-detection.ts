// Reverse image search by Google Cloud Vision web detection: POST {VISION_GOOGLE_BASE_URL}/images:annotate
// with one request whose feature is WEB_DETECTION, the image sent as base64 content (Google never
// fetches a URL of ours or the caller's). The key travels in the x-goog-api-key header, as the
// vision module's Google provider sends it (never in the URL, where logs could keep it).
//
// The answer's webDetection lists fullMatchingImages (the same image), partialMatchingImages
// (crops and edits of it), pagesWithMatchingImages (pages that show it, each with its own full and
// partial matches) and visuallySimilarImages. Each becomes a candidate with its origin.
import { z } from 'zod';
import { postJson } from '../vision/index.js';
import { ProviderError, joinUrl } from '../../platform/http/provider-error.js';

export type WebMatchKind = 'google_full_match' | 'google_partial_match' | 'google_page_match' | 'google_similar';

export interface WebMatch {
  url: string;
  kind: WebMatchKind;
  /** The page that shows the image, for page matches. */
  pageUrl?: string;
}

export interface WebDetectionOptions {
  apiKey: string;
  baseUrl: string;
  timeoutMs: number;
  /** maxResults of the feature: how many of each list Google returns. */
  maxResults: number;
}

const image = z.object({ url: z.string() }).passthrough();
const annotateSchema = z.object({
  responses: z
    .array(
      z.object({
        error: z.object({ code: z.number().optional(), message: z.string().optional() }).optional(),
        webDetection: z
          .object({
            fullMatchingImages: z.array(image).optional(),
            partialMatchingImages: z.array(image).optional(),
            visuallySimilarImages: z.array(image).optional(),
            pagesWithMatchingImages: z
              .array(
                z
                  .object({
                    url: z.string(),
                    pageTitle: z.string().optional(),
                    fullMatchingImages: z.array(image).optional(),
                    partialMatchingImages: z.array(image).optional(),
                  })
                  .passthrough(),
              )
              .optional(),
          })
          .passthrough()
          .optional(),
      }),
    )
    .min(1),
});

export class GoogleWebDetection {
  constructor(private readonly options: WebDetectionOptions) {}

  /** Where else the image is on the web, most certain kinds first. Throws ProviderError when Google does not deliver. */
  async find(imageBytes: Buffer): Promise<WebMatch[]> {
    const { apiKey, baseUrl, timeoutMs, maxResults } = this.options;
    const answer = await postJson({
      provider: 'google_vision',
      url: joinUrl(baseUrl, 'images:annotate'),
      headers: { 'Content-Type': 'application/json', 'x-goog-api-key': apiKey },
      body: JSON.stringify({ requests: [{ image: { content: imageBytes.toString('base64') }, features: [{ type: 'WEB_DETECTION', maxResults }] }] }),
      timeoutMs,
      secrets: [apiKey],
    });
    const parsed = annotateSchema.safeParse(answer);
    if (!parsed.success) throw new ProviderError('google_vision', 'malformed', 'google_vision answered without responses[0]', parsed.error.issues[0]?.message);
    const response = parsed.data.responses[0]!;
    if (response.error && (response.error.code ?? 0) !== 0) {
      throw new ProviderError('google_vision', 'upstream', `google_vision refused the image (code ${response.error.code})`, response.error.message?.slice(0, 300));
    }
    const web = response.webDetection ?? {};
    const matches: WebMatch[] = [
      ...(web.fullMatchingImages ?? []).map((i) => ({ url: i.url, kind: 'google_full_match' as const })),
      ...(web.pagesWithMatchingImages ?? []).flatMap((page) =>
        [...(page.fullMatchingImages ?? []), ...(page.partialMatchingImages ?? [])].map((i) => ({ url: i.url, kind: 'google_page_match' as const, pageUrl: page.url })),
      ),
      ...(web.partialMatchingImages ?? []).map((i) => ({ url: i.url, kind: 'google_partial_match' as const })),
      ...(web.visuallySimilarImages ?? []).map((i) => ({ url: i.url, kind: 'google_similar' as const })),
    ];
    return matches.filter((m) => /^https?:\/\//i.test(m.url) && m.url.length <= 2048);
  }
}
