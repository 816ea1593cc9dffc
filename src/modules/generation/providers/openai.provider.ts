// An OpenAI-compatible images API: `POST {base}/images/generations` with {model, prompt, n, size}
// and a bearer key, answering {data: [{b64_json} | {url}]}. OpenAI itself, or any server that speaks
// the same protocol (a GPU box running an open model: then a key may not be needed at all). GPT
// image models always answer b64_json and refuse `response_format`; DALL-E models are asked for
// b64_json; dall-e-3 makes one image a call, so it gets `count` calls. A `url` answer is downloaded
// through the SSRF-safe fetcher.
import { z } from 'zod';
import { openAiSize } from '../generation.prompts.js';
import { ProviderError, callJson, eachImage, joinUrl, redact, type GenerationProvider, type ProviderRequest, type ResultDownloader } from './provider.js';

export interface OpenAiImagesOptions {
  apiKey?: string;
  baseUrl: string;
  model: string;
  maxImageBytes: number;
}

const answerSchema = z.object({
  data: z.array(z.object({ b64_json: z.string().nullish(), url: z.string().nullish() }).passthrough()).min(1),
});

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

export class OpenAiImagesProvider implements GenerationProvider {
  readonly name = 'openai' as const;

  constructor(
    private readonly options: OpenAiImagesOptions,
    private readonly download: ResultDownloader,
  ) {}

  async generate(request: ProviderRequest): Promise<Buffer[]> {
    if (this.options.model === 'dall-e-3') return eachImage(request.count, async () => (await this.ask(request, 1))[0]!);
    return this.ask(request, request.count);
  }

  private async ask(request: ProviderRequest, n: number): Promise<Buffer[]> {
    const { baseUrl, model, maxImageBytes } = this.options;
    const key = request.apiKey ?? this.options.apiKey;
    const secrets = [key, this.options.apiKey];
    const body: Record<string, unknown> = { model, prompt: request.prompt, n, size: openAiSize(model, request.orientation) };
    if (!model.startsWith('gpt-image')) body.response_format = 'b64_json';
    const reply = await callJson(joinUrl(baseUrl, 'images/generations'), {
      provider: this.name,
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', ...(key ? { Authorization: `Bearer ${key}` } : {}) },
      body: JSON.stringify(body),
      signal: request.signal,
      // n images in base64 (4/3 of their bytes) and a little JSON around them.
      maxBytes: Math.ceil((maxImageBytes * n * 4) / 3) + 64 * 1024,
      secrets,
    });
    const parsed = answerSchema.safeParse(reply);
    if (!parsed.success) throw new ProviderError(this.name, 'malformed', 'openai answered without data[] of images');
    // Items that are not usable are left out; the answer fails only when none is usable.
    const images: Buffer[] = [];
    let firstProblem: ProviderError | undefined;
    for (const item of parsed.data.data.slice(0, n)) {
      try {
        images.push(await this.bytesOf(item, request.signal, secrets));
      } catch (error) {
        if (!(error instanceof ProviderError)) throw error;
        firstProblem ??= error;
      }
    }
    if (images.length === 0) throw firstProblem!;
    return images;
  }

  private async bytesOf(item: { b64_json?: string | null; url?: string | null }, signal: AbortSignal, secrets: Array<string | undefined>): Promise<Buffer> {
    if (item.b64_json) {
      const text = item.b64_json.replace(/\s+/g, '');
      if (!BASE64.test(text)) throw new ProviderError(this.name, 'malformed', 'openai answered b64_json that is not base64');
      return Buffer.from(text, 'base64');
    }
    if (!item.url) throw new ProviderError(this.name, 'malformed', 'openai answered an image with neither b64_json nor url');
    try {
      return await this.download(item.url, { signal, maxBytes: this.options.maxImageBytes });
    } catch (error) {
      if (signal.aborted) throw new ProviderError(this.name, 'timeout', 'openai did not deliver the image in time');
      throw new ProviderError(this.name, 'network', 'an image openai made could not be downloaded', redact((error as Error).message, secrets));
    }
  }
}
