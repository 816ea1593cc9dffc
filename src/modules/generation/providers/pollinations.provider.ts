// The free provider: Pollinations' image API (image.pollinations.ai), `GET /prompt/{prompt}` with
// model, width, height and seed as query parameters, answering the image itself (image/jpeg). One
// image per call, so `count` images are `count` calls with their own seeds. The token is optional
// (higher rate limits) and travels as `Authorization: Bearer`, never in the URL.
import { FREE_SIZES } from '../generation.prompts.js';
import { ProviderError, call, eachImage, joinUrl, randomSeed, redact, type GenerationProvider, type ProviderRequest } from './provider.js';

export interface PollinationsOptions {
  baseUrl: string;
  token?: string;
  model: string;
  maxImageBytes: number;
}

export class PollinationsProvider implements GenerationProvider {
  readonly name = 'pollinations' as const;

  constructor(private readonly options: PollinationsOptions) {}

  async generate(request: ProviderRequest): Promise<Buffer[]> {
    return eachImage(request.count, () => this.one(request));
  }

  private async one(request: ProviderRequest): Promise<Buffer> {
    const { baseUrl, model, maxImageBytes } = this.options;
    const token = request.apiKey ?? this.options.token;
    const size = FREE_SIZES[request.orientation];
    const query = new URLSearchParams({
      model,
      width: String(size.width),
      height: String(size.height),
      seed: String(randomSeed()),
      nologo: 'true',
      // Not in the public feed, and the prompt as given (the style is already worked in).
      nofeed: 'true',
      private: 'true',
      enhance: 'false',
    });
    const url = `${joinUrl(baseUrl, `prompt/${encodeURIComponent(request.prompt)}`)}?${query}`;
    const answer = await call(url, {
      provider: this.name,
      headers: { Accept: 'image/*', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
      signal: request.signal,
      maxBytes: maxImageBytes,
      secrets: [token],
    });
    // An error page or JSON with a 200 is not an image (the chain checks the bytes themselves too).
    if (!answer.contentType.toLowerCase().startsWith('image/')) {
      throw new ProviderError(this.name, 'malformed', `pollinations answered ${answer.contentType || 'no content type'} instead of an image`, redact(answer.body.subarray(0, 200).toString('utf8'), [token]));
    }
    return answer.body;
  }
}
