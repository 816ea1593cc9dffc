// <provider_3>: OCR.space, POST /parse/image with the image as a base64Image data URI and the key in
// the `apikey` header. It reads text only: it takes part in task ocr, never in describe or all (see
// docs/rest-api.md "Vision"). OCR.space reports no confidence; see UNSCORED_CONFIDENCE.
import { z } from 'zod';
import type { InspectedImage, ProviderResult, VisionTask } from '../vision.types.js';
import { NOTHING_FOUND_CONFIDENCE, UNSCORED_CONFIDENCE } from '../vision.types.js';
import { ProviderError, dataUri, joinUrl, postJson, type VisionProvider } from './provider.js';

export interface OcrSpaceOptions {
  apiKey: string;
  baseUrl: string;
  timeoutMs: number;
  /** OCR.space engine 1 or 2 (2 reads more kinds of text; 1 is faster). */
  engine: 1 | 2;
  language: string;
}

const messageList = z.union([z.string(), z.array(z.string())]).nullable().optional();
const parseSchema = z.object({
  ParsedResults: z.array(z.object({ ParsedText: z.string().nullable().optional(), FileParseExitCode: z.union([z.number(), z.string()]).optional(), ErrorMessage: messageList }).passthrough()).nullable().optional(),
  OCRExitCode: z.union([z.number(), z.string()]).optional(),
  IsErroredOnProcessing: z.boolean().optional(),
  ErrorMessage: messageList,
  ErrorDetails: messageList,
});

function joinMessages(value: string | string[] | null | undefined): string {
  return (Array.isArray(value) ? value.join('; ') : (value ?? '')).slice(0, 300);
}

export class OcrSpaceProvider implements VisionProvider {
  readonly name = 'ocr_space' as const;

  constructor(private readonly options: OcrSpaceOptions) {}

  supports(task: VisionTask): boolean {
    return task === 'ocr';
  }

  async analyze(image: InspectedImage): Promise<ProviderResult> {
    const { apiKey, baseUrl, timeoutMs, engine, language } = this.options;
    const form = new FormData();
    form.set('base64Image', dataUri(image));
    form.set('language', language);
    form.set('OCREngine', String(engine));
    form.set('scale', 'true');
    form.set('detectOrientation', 'true');
    form.set('isOverlayRequired', 'false');
    const answer = await postJson({ provider: this.name, url: joinUrl(baseUrl, 'parse/image'), headers: { apikey: apiKey }, body: form, timeoutMs, secrets: [apiKey] });
    const parsed = parseSchema.safeParse(answer);
    if (!parsed.success) throw new ProviderError(this.name, 'malformed', 'ocr_space answered in an unknown shape', parsed.error.issues[0]?.message);
    const { ParsedResults, OCRExitCode, IsErroredOnProcessing, ErrorMessage, ErrorDetails } = parsed.data;
    // OCRExitCode: 1 parsed, 2 parsed in part, 3 and 4 failed.
    const exit = Number(OCRExitCode ?? 1);
    if (IsErroredOnProcessing || exit === 3 || exit === 4 || !ParsedResults) {
      throw new ProviderError(this.name, 'upstream', `ocr_space could not read the image (exit code ${OCRExitCode ?? 'none'})`, joinMessages(ErrorMessage) || joinMessages(ErrorDetails));
    }
    const text = ParsedResults.map((r) => (r.ParsedText ?? '').replace(/\r\n?/g, '\n').trim())
      .filter(Boolean)
      .join('\n');
    return { text, caption: '', labels: [], confidence: text ? UNSCORED_CONFIDENCE : NOTHING_FOUND_CONFIDENCE };
  }
}
