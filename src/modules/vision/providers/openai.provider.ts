// <provider_1>: an OpenAI-compatible Chat Completions API with vision (OpenAI itself, or any server
// that speaks the same protocol). The image travels as a data: URI in an image_url content part; the
// model is asked for strict JSON {text, caption, labels, confidence} through a JSON schema.
import { z } from 'zod';
import type { InspectedImage, ProviderResult, VisionTask } from '../vision.types.js';
import { clamp01, roundConfidence } from '../vision.types.js';
import { ProviderError, dataUri, joinUrl, postJson, type VisionProvider } from './provider.js';

export interface OpenAiOptions {
  apiKey: string;
  baseUrl: string;
  model: string;
  timeoutMs: number;
}

const INSTRUCTIONS: Record<VisionTask, string> = {
  ocr: 'Transcribe all text visible in the image exactly, keeping line breaks, in "text". Leave "caption" empty and "labels" empty.',
  describe: 'Describe the image in one plain sentence in "caption" and list the main objects or subjects as short lowercase nouns in "labels". Leave "text" empty.',
  all: 'Transcribe all visible text exactly in "text" (empty if none), describe the image in one plain sentence in "caption", and list the main objects or subjects as short lowercase nouns in "labels".',
};

const SYSTEM_PROMPT =
  'You analyse images for an API. Answer with one JSON object only: {"text": string, "caption": string, "labels": string[], "confidence": number}. ' +
  '"confidence" is your confidence from 0 to 1 that the answer is correct and complete. Never invent text that is not visible.';

const RESPONSE_SCHEMA = {
  type: 'object',
  properties: {
    text: { type: 'string' },
    caption: { type: 'string' },
    labels: { type: 'array', items: { type: 'string' } },
    confidence: { type: 'number' },
  },
  required: ['text', 'caption', 'labels', 'confidence'],
  additionalProperties: false,
};

const completionSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({ content: z.string().nullable().optional(), refusal: z.string().nullable().optional() }),
        finish_reason: z.string().nullable().optional(),
      }),
    )
    .min(1),
});

const answerSchema = z.object({
  text: z.string().default(''),
  caption: z.string().default(''),
  labels: z.array(z.string()).default([]),
  confidence: z.number().optional(),
});

/** The model's JSON, with or without a ```json fence around it. */
export function parseModelJson(content: string): unknown {
  const trimmed = content.trim();
  const fenced = /^```(?:json)?\s*([\s\S]*?)\s*```$/i.exec(trimmed);
  return JSON.parse(fenced ? fenced[1]! : trimmed);
}

export class OpenAiProvider implements VisionProvider {
  readonly name = 'openai' as const;

  constructor(private readonly options: OpenAiOptions) {}

  supports(): boolean {
    return true;
  }

  async analyze(image: InspectedImage, task: VisionTask): Promise<ProviderResult> {
    const { apiKey, baseUrl, model, timeoutMs } = this.options;
    const body = {
      model,
      temperature: 0,
      max_tokens: 1200,
      response_format: { type: 'json_schema', json_schema: { name: 'image_analysis', strict: true, schema: RESPONSE_SCHEMA } },
      messages: [
        { role: 'system', content: SYSTEM_PROMPT },
        {
          role: 'user',
          content: [
            { type: 'text', text: INSTRUCTIONS[task] },
            { type: 'image_url', image_url: { url: dataUri(image), detail: 'auto' } },
          ],
        },
      ],
    };
    const answer = await postJson({
      provider: this.name,
      url: joinUrl(baseUrl, 'chat/completions'),
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${apiKey}` },
      body: JSON.stringify(body),
      timeoutMs,
      secrets: [apiKey],
    });
    const completion = completionSchema.safeParse(answer);
    if (!completion.success) throw new ProviderError(this.name, 'malformed', 'openai answered without choices[0].message');
    const message = completion.data.choices[0]!.message;
    if (!message.content) {
      throw new ProviderError(this.name, 'upstream', 'openai gave no content', message.refusal ? `refusal: ${message.refusal.slice(0, 200)}` : undefined);
    }
    let parsed: z.infer<typeof answerSchema>;
    try {
      const result = answerSchema.safeParse(parseModelJson(message.content));
      if (!result.success) throw new Error(result.error.issues[0]?.message);
      parsed = result.data;
    } catch (error) {
      throw new ProviderError(this.name, 'malformed', 'openai answered content that is not the requested JSON', (error as Error).message);
    }
    const text = task === 'describe' ? '' : parsed.text.trim();
    const caption = task === 'ocr' ? '' : parsed.caption.trim();
    const labels = task === 'ocr' ? [] : [...new Set(parsed.labels.map((l) => l.trim().toLowerCase()).filter(Boolean))];
    return { text, caption, labels, confidence: roundConfidence(modelConfidence(parsed.confidence)) };
  }
}

/** The model's own confidence, read as a fraction (a 0-100 percentage is scaled); 0.5 when it gave none. */
function modelConfidence(value: number | undefined): number {
  if (value === undefined || !Number.isFinite(value)) return 0.5;
  if (value > 1 && value <= 100) return value / 100;
  return clamp01(value);
}
