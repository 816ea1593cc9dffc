// <provider_1>: an OpenAI-compatible Chat Completions API with vision (OpenAI itself, or any server
// that speaks the same protocol). The image travels as a data: URI in an image_url content part; the
// model is asked for strict JSON {text, caption, labels, confidence} through a JSON schema. It also
// judges tag sets (community tags): {matches} among the tags given.
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

const JUDGE_PROMPT =
  'You check tags that people gave an image. Answer with one JSON object only: {"matches": string[]}, listing exactly those of the given tags ' +
  'that truly describe what the image shows (objects, places, scenes or visible text); leave out tags that do not, or that you cannot see.';

const JUDGE_SCHEMA = {
  type: 'object',
  properties: { matches: { type: 'array', items: { type: 'string' } } },
  required: ['matches'],
  additionalProperties: false,
};

const judgementSchema = z.object({ matches: z.array(z.string()) });

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
    const parsed = await this.ask(image, { system: SYSTEM_PROMPT, instruction: INSTRUCTIONS[task], schemaName: 'image_analysis', schema: RESPONSE_SCHEMA, maxTokens: 1200 }, answerSchema);
    const text = task === 'describe' ? '' : parsed.text.trim();
    const caption = task === 'ocr' ? '' : parsed.caption.trim();
    const labels = task === 'ocr' ? [] : [...new Set(parsed.labels.map((l) => l.trim().toLowerCase()).filter(Boolean))];
    return { text, caption, labels, confidence: roundConfidence(modelConfidence(parsed.confidence)) };
  }

  /** The model's judgement of a tag set: the given tags it sees in the image (only those; any case). */
  async judgeTags(image: InspectedImage, tags: readonly string[]): Promise<string[]> {
    const instruction = `The tags: ${JSON.stringify(tags)}. Which of them describe this image?`;
    const { matches } = await this.ask(image, { system: JUDGE_PROMPT, instruction, schemaName: 'tag_judgement', schema: JUDGE_SCHEMA, maxTokens: 300 }, judgementSchema);
    const given = new Map(tags.map((tag) => [tag.toLowerCase(), tag]));
    return [...new Set(matches.map((m) => given.get(m.trim().toLowerCase())).filter((tag): tag is string => tag !== undefined))];
  }

  /** One Chat Completions call with the image and a strict JSON schema; the content parsed by `answer`. */
  private async ask<T>(
    image: InspectedImage,
    prompt: { system: string; instruction: string; schemaName: string; schema: object; maxTokens: number },
    answer: z.ZodType<T>,
  ): Promise<T> {
    const { apiKey, baseUrl, model, timeoutMs } = this.options;
    const body = {
      model,
      temperature: 0,
      max_tokens: prompt.maxTokens,
      response_format: { type: 'json_schema', json_schema: { name: prompt.schemaName, strict: true, schema: prompt.schema } },
      messages: [
        { role: 'system', content: prompt.system },
        {
          role: 'user',
          content: [
            { type: 'text', text: prompt.instruction },
            { type: 'image_url', image_url: { url: dataUri(image), detail: 'auto' } },
          ],
        },
      ],
    };
    const reply = await postJson({
      provider: this.name,
      url: joinUrl(baseUrl, 'chat/completions'),
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${apiKey}` },
      body: JSON.stringify(body),
      timeoutMs,
      secrets: [apiKey],
    });
    const completion = completionSchema.safeParse(reply);
    if (!completion.success) throw new ProviderError(this.name, 'malformed', 'openai answered without choices[0].message');
    const message = completion.data.choices[0]!.message;
    if (!message.content) {
      throw new ProviderError(this.name, 'upstream', 'openai gave no content', message.refusal ? `refusal: ${message.refusal.slice(0, 200)}` : undefined);
    }
    try {
      const result = answer.safeParse(parseModelJson(message.content));
      if (!result.success) throw new Error(result.error.issues[0]?.message);
      return result.data;
    } catch (error) {
      throw new ProviderError(this.name, 'malformed', 'openai answered content that is not the requested JSON', (error as Error).message);
    }
  }
}

/** The model's own confidence, read as a fraction (a 0-100 percentage is scaled); 0.5 when it gave none. */
function modelConfidence(value: number | undefined): number {
  if (value === undefined || !Number.isFinite(value)) return 0.5;
  if (value > 1 && value <= 100) return value / 100;
  return clamp01(value);
}
