// <provider_2>: Google Cloud Vision, images:annotate. Text from DOCUMENT_TEXT_DETECTION, labels from
// OBJECT_LOCALIZATION (counted objects) and LABEL_DETECTION (scene labels); Google does not caption,
// so the caption is built from those the way the local provider builds it. The key travels in the
// x-goog-api-key header (not in the URL, where it could end up in logs).
import { z } from 'zod';
import { buildCaption } from '../caption.js';
import { mean, summariseDetections } from '../local/local-result.js';
import type { InspectedImage, ProviderResult, VisionTask } from '../vision.types.js';
import { NOTHING_FOUND_CONFIDENCE, UNSCORED_CONFIDENCE, roundConfidence } from '../vision.types.js';
import { ProviderError, joinUrl, postJson, type VisionProvider } from './provider.js';

export interface GoogleVisionOptions {
  apiKey: string;
  baseUrl: string;
  timeoutMs: number;
  /** Labels and objects scored below this are left out (0 to 1). */
  labelMinScore: number;
}

const scored = z.object({ confidence: z.number().optional() }).passthrough();
const annotateSchema = z.object({
  responses: z
    .array(
      z.object({
        error: z.object({ code: z.number().optional(), message: z.string().optional() }).optional(),
        textAnnotations: z.array(z.object({ description: z.string().optional() }).passthrough()).optional(),
        fullTextAnnotation: z
          .object({
            text: z.string().optional(),
            pages: z.array(scored.extend({ blocks: z.array(scored).optional() })).optional(),
          })
          .passthrough()
          .optional(),
        labelAnnotations: z.array(z.object({ description: z.string(), score: z.number().optional() }).passthrough()).optional(),
        localizedObjectAnnotations: z.array(z.object({ name: z.string(), score: z.number().optional() }).passthrough()).optional(),
      }),
    )
    .min(1),
});

type Annotation = z.infer<typeof annotateSchema>['responses'][number];

export class GoogleVisionProvider implements VisionProvider {
  readonly name = 'google_vision' as const;

  constructor(private readonly options: GoogleVisionOptions) {}

  supports(): boolean {
    return true;
  }

  async analyze(image: InspectedImage, task: VisionTask): Promise<ProviderResult> {
    const { apiKey, baseUrl, timeoutMs, labelMinScore } = this.options;
    // Text is read for every task: a description says what is written, as the local one does.
    const features: Array<{ type: string; maxResults?: number }> = [{ type: 'DOCUMENT_TEXT_DETECTION' }];
    if (task !== 'ocr') features.push({ type: 'OBJECT_LOCALIZATION', maxResults: 20 }, { type: 'LABEL_DETECTION', maxResults: 10 });
    const answer = await postJson({
      provider: this.name,
      url: joinUrl(baseUrl, 'images:annotate'),
      headers: { 'Content-Type': 'application/json', 'x-goog-api-key': apiKey },
      body: JSON.stringify({ requests: [{ image: { content: image.bytes.toString('base64') }, features }] }),
      timeoutMs,
      secrets: [apiKey],
    });
    const parsed = annotateSchema.safeParse(answer);
    if (!parsed.success) throw new ProviderError(this.name, 'malformed', 'google_vision answered without responses[0]', parsed.error.issues[0]?.message);
    const response = parsed.data.responses[0]!;
    if (response.error && (response.error.code ?? 0) !== 0) {
      throw new ProviderError(this.name, 'upstream', `google_vision refused the image (code ${response.error.code})`, response.error.message?.slice(0, 300));
    }

    const text = (response.fullTextAnnotation?.text ?? response.textAnnotations?.[0]?.description ?? '').trim();
    const parts: number[] = [];
    if (text) parts.push(textConfidence(response));
    if (task === 'ocr') return { text, caption: '', labels: [], confidence: roundConfidence(parts.length ? mean(parts) : NOTHING_FOUND_CONFIDENCE) };

    const objects = summariseDetections((response.localizedObjectAnnotations ?? []).map((o) => ({ label: o.name, score: o.score ?? 0 })), labelMinScore);
    const sceneLabels = (response.labelAnnotations ?? []).filter((l) => (l.score ?? 0) >= labelMinScore);
    const labels = [...new Set([...objects.map((o) => o.label), ...sceneLabels.map((l) => l.description.toLowerCase())])];
    const scores = [...objects.map((o) => o.score), ...sceneLabels.map((l) => l.score ?? 0)];
    if (scores.length > 0) parts.push(mean(scores));
    const caption = buildCaption({ objects, sceneLabels: sceneLabels.map((l) => l.description), text });
    return { text: task === 'all' ? text : '', caption, labels, confidence: roundConfidence(parts.length ? mean(parts) : NOTHING_FOUND_CONFIDENCE) };
  }
}

/** Page (or block) confidence of the document text; a fixed prior when Google gave none. */
function textConfidence(response: Annotation): number {
  const pages = response.fullTextAnnotation?.pages ?? [];
  const pageScores = pages.map((p) => p.confidence).filter((c): c is number => typeof c === 'number' && c > 0);
  if (pageScores.length > 0) return mean(pageScores);
  const blockScores = pages.flatMap((p) => p.blocks ?? []).map((b) => b.confidence).filter((c): c is number => typeof c === 'number' && c > 0);
  return blockScores.length > 0 ? mean(blockScores) : UNSCORED_CONFIDENCE;
}
