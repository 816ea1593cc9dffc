// Image analysis (spec "Vision"): text (OCR), a caption and labels, from a named provider or, in auto
// mode, from the configured external providers in order with the local one last. Other modules call
// `analyze({ image, task, provider, payer })` with bytes they already hold.
//
// An analysis by an external provider costs EXTERNAL_ANALYSIS_CREDITS API credits to the account it
// runs for (`payer`), when billing is wired (src/services.ts): the price is held before the call and
// captured only when the provider answered, released otherwise. In auto mode the external providers
// are tried only while the account can pay, else the local one answers (free); a named external
// provider the account cannot pay for is a 402 before any work.
import type { VisionConfig } from './vision.settings.js';
import type { Logger } from '../../platform/logger.js';
import { AppError, ErrorCode, InvalidInput, PayloadTooLarge, Unavailable } from '../../platform/errors.js';
import { parseInput } from '../../platform/validation.js';
import { analyzeFields, analyzeRequestSchema, decodeBase64, forUpload, inspectImage } from './vision.input.js';
import type { InspectedImage, ProviderChoice, ProviderName, VisionResult, VisionTask } from './vision.types.js';
import { ProviderError, type VisionProvider } from './providers/provider.js';
import { OpenAiProvider } from './providers/openai.provider.js';
import { GoogleVisionProvider } from './providers/google-vision.provider.js';
import { OcrSpaceProvider } from './providers/ocr-space.provider.js';
import { LocalProvider } from './providers/local.provider.js';
import { fromMinor, InsufficientCredits, InsufficientFunds, LedgerAction, UNITS_PER_WHOLE, type CreditHold, type LedgerActionName } from '../ledger/index.js';

export type { VisionConfig };

/** API credits one analysis by an external provider costs. */
export const EXTERNAL_ANALYSIS_CREDITS = 1;

/** How external analyses are paid: the ledger's credits (CreditsService fits). */
export interface VisionBilling {
  /** Reserves the price; throws InsufficientFunds (402) when the account cannot pay. */
  hold(accountId: number, credits: number, what: { action: LedgerActionName; reference?: string | null; expiresInMs?: number }): Promise<CreditHold>;
  capture(hold: CreditHold): Promise<void>;
  release(hold: CreditHold): Promise<void>;
}

export interface AnalyzeOptions {
  image: Buffer;
  task?: VisionTask;
  provider?: ProviderChoice;
  /** The input the image came from, named in messages about the image (default `image`). */
  field?: string;
  /** The account the analysis runs for: it pays for external providers (without one, only the local provider can answer when billing is on). */
  payer?: number;
}

/** The REST and GraphQL input: base64 or an uploaded file, plus task and provider. */
export interface AnalyzeRequest {
  task?: string | null;
  provider?: string | null;
  image_data?: string | null;
  image_file?: File | null;
}

export interface TimedVisionResult extends VisionResult {
  /** Seconds since the epoch when the analysis finished (milliseconds as the fraction). */
  timestamp: number;
}

const KEY_VARIABLES: Record<Exclude<ProviderName, 'local'>, string> = {
  openai: 'VISION_OPENAI_API_KEY',
  google_vision: 'VISION_GOOGLE_API_KEY',
  ocr_space: 'VISION_OCR_SPACE_API_KEY',
};

const choiceSchema = analyzeFields.pick({ task: true, provider: true });

export class VisionService {
  private readonly external = new Map<ProviderName, VisionProvider>();
  private readonly local: LocalProvider | undefined;
  private billing: VisionBilling | null = null;

  constructor(
    private readonly config: VisionConfig,
    private readonly logger: Logger,
    private readonly limits: { maxBytes: number },
  ) {
    const { timeoutMs } = config;
    if (config.openai) this.external.set('openai', new OpenAiProvider({ ...config.openai, timeoutMs }));
    if (config.googleVision) this.external.set('google_vision', new GoogleVisionProvider({ ...config.googleVision, timeoutMs, labelMinScore: config.local.labelMinScore }));
    if (config.ocrSpace) this.external.set('ocr_space', new OcrSpaceProvider({ ...config.ocrSpace, timeoutMs, language: 'eng' }));
    if (config.local.enabled) this.local = new LocalProvider({ ...config.local, maxPixels: config.maxPixels }, logger);
  }

  /** External providers cost credits from here on (src/services.ts wires the ledger in). */
  useBilling(billing: VisionBilling): void {
    this.billing = billing;
  }

  /** The providers auto mode would try for a task, in order. */
  autoOrder(task: VisionTask): ProviderName[] {
    const names: ProviderName[] = this.config.order.filter((name) => this.external.get(name)?.supports(task));
    if (this.local) names.push('local');
    return names;
  }

  /** Checks the bytes and runs the analysis. Throws InvalidInput, Unavailable or a 502 AppError. */
  async analyze({ image, task = 'all', provider = 'auto', field = 'image', payer }: AnalyzeOptions): Promise<VisionResult> {
    const choice = parseInput(choiceSchema, { task, provider });
    const chain = this.chain(choice.provider, choice.task);
    const inspected = await inspectImage(image, field, { maxPixels: this.config.maxPixels, maxBytes: this.limits.maxBytes });
    let upload: Promise<InspectedImage> | undefined;
    const failures: ProviderError[] = [];
    /** Set once the account could not pay: auto mode tries no more external providers. */
    let unpaid: InsufficientFunds | undefined;
    for (const candidate of chain) {
      let hold: CreditHold | undefined;
      if (candidate.name !== 'local' && this.billing) {
        if (unpaid) continue;
        try {
          hold = await this.hold(candidate.name, choice.task, payer);
        } catch (error) {
          if (!(error instanceof InsufficientFunds)) throw error;
          if (choice.provider !== 'auto') throw this.cannotPay(`provider ${candidate.name} costs`, error);
          unpaid = error;
          this.logger.debug({ provider: candidate.name, payer }, 'vision: too few credits for external providers; skipping them');
          continue;
        }
      }
      try {
        const prepared = candidate.name === 'local' ? inspected : await (upload ??= forUpload(inspected));
        const result = await candidate.analyze(prepared, choice.task, field);
        if (hold) await this.settle(hold, 'capture');
        return { ...result, providerUsed: candidate.name };
      } catch (error) {
        if (hold) await this.settle(hold, 'release');
        if (!(error instanceof ProviderError)) throw error;
        failures.push(error);
        this.logger.warn(
          { provider: error.provider, failure: error.failure, upstreamStatus: error.upstreamStatus, detail: error.detail, task: choice.task },
          choice.provider === 'auto' ? 'vision provider failed; trying the next one' : 'vision provider failed',
        );
      }
    }
    if (choice.provider !== 'auto') throw new AppError(`provider ${choice.provider} failed: ${failures[0]?.message ?? 'no answer'}`, 502, ErrorCode.ProviderFailed, 'provider');
    // Only external providers are configured for the task, and the account could pay for none.
    if (unpaid && failures.length === 0) throw this.cannotPay(`the vision providers configured here (${chain.map((c) => c.name).join(', ')}) cost`, unpaid);
    throw new AppError(`every vision provider failed: ${failures.map((f) => f.message).join('; ')}`, 502, ErrorCode.ProviderFailed);
  }

  /**
   * A model provider's judgement of a tag set (community tags): the given tags it sees in the image.
   * Null when no model provider (openai) is configured, the payer cannot pay for it, or the model
   * fails: the caller then matches the tags against an analysis itself. Costs one external analysis.
   */
  async judgeTags(image: Buffer, tags: readonly string[], payer: number): Promise<string[] | null> {
    const model = this.external.get('openai');
    if (!(model instanceof OpenAiProvider) || tags.length === 0) return null;
    const inspected = await inspectImage(image, 'image', { maxPixels: this.config.maxPixels, maxBytes: this.limits.maxBytes });
    let hold: CreditHold | undefined;
    if (this.billing) {
      try {
        hold = await this.hold('openai', 'describe', payer);
      } catch (error) {
        if (error instanceof InsufficientFunds) return null;
        throw error;
      }
    }
    try {
      const matches = await model.judgeTags(await forUpload(inspected), tags);
      if (hold) await this.settle(hold, 'capture');
      return matches;
    } catch (error) {
      if (hold) await this.settle(hold, 'release');
      if (!(error instanceof ProviderError)) throw error;
      this.logger.warn({ provider: error.provider, failure: error.failure, detail: error.detail }, 'vision: judging tags failed; matching them against labels instead');
      return null;
    }
  }

  /** The request form of REST and GraphQL: exactly one of image_data (base64) and image_file. */
  async analyzeRequest(request: AnalyzeRequest, options: { payer?: number } = {}): Promise<TimedVisionResult> {
    const valid = parseInput(analyzeRequestSchema, {
      task: request.task ?? undefined,
      provider: request.provider ?? undefined,
      image_data: request.image_data ?? undefined,
      image_file: await standardFile(request.image_file),
    });
    // Task and provider before the image: a provider that cannot serve is refused before the image is read.
    this.chain(valid.provider, valid.task);
    let image: Buffer;
    let field: string;
    if (valid.image_file) {
      field = 'image_file';
      if (valid.image_file.size > this.limits.maxBytes) throw new PayloadTooLarge(`${field}: the image is larger than the limit of ${this.limits.maxBytes} bytes`);
      image = Buffer.from(await valid.image_file.arrayBuffer());
    } else {
      field = 'image_data';
      image = decodeBase64(valid.image_data!, field);
    }
    const result = await this.analyze({ image, task: valid.task, provider: valid.provider, field, payer: options.payer });
    return { ...result, timestamp: Date.now() / 1000 };
  }

  /** The providers to try, in order; refuses names that cannot serve the task here. */
  private chain(provider: ProviderChoice, task: VisionTask): VisionProvider[] {
    if (provider === 'auto') {
      const chain = this.autoOrder(task).map((name) => (name === 'local' ? this.local! : this.external.get(name)!));
      if (chain.length === 0) {
        throw new Unavailable(
          task === 'ocr'
            ? 'no vision provider is configured: set one of VISION_OPENAI_API_KEY, VISION_GOOGLE_API_KEY, VISION_OCR_SPACE_API_KEY, or enable the local provider (VISION_LOCAL_ENABLED)'
            : `no vision provider for task ${task} is configured: set VISION_OPENAI_API_KEY or VISION_GOOGLE_API_KEY, or enable the local provider (VISION_LOCAL_ENABLED); ocr_space reads text only`,
        );
      }
      return chain;
    }
    if (provider === 'local') {
      if (!this.local) throw new Unavailable('provider local is disabled on this server (VISION_LOCAL_ENABLED=false)');
      return [this.local];
    }
    const named = this.external.get(provider);
    if (!named) throw new Unavailable(`provider ${provider} is not configured on this server (${KEY_VARIABLES[provider]} is not set)`);
    if (!named.supports(task)) throw new InvalidInput(`provider: ${provider} reads text only; use task ocr with it, or another provider for task ${task}`, 'provider');
    return [named];
  }

  /** Holds the price of one external analysis for the payer (402 InsufficientFunds when it cannot pay). */
  private async hold(provider: ProviderName, task: VisionTask, payer: number | undefined): Promise<CreditHold> {
    const needed = EXTERNAL_ANALYSIS_CREDITS * UNITS_PER_WHOLE;
    if (payer === undefined) throw new InsufficientCredits(needed, 0);
    // Long enough for the call (its timeout) and the upload; the ledger's sweep releases it after.
    const expiresInMs = 2 * this.config.timeoutMs + 60_000;
    return this.billing!.hold(payer, EXTERNAL_ANALYSIS_CREDITS, { action: LedgerAction.Vision, reference: `${provider}:${task}`, expiresInMs });
  }

  /** Captures or releases a hold; a failure leaves it to expire (logged, the answer still goes out). */
  private async settle(hold: CreditHold, how: 'capture' | 'release'): Promise<void> {
    try {
      await this.billing![how](hold);
    } catch (error) {
      this.logger.error({ err: error, hold: hold.id }, `vision: could not ${how} the credit hold`);
    }
  }

  private cannotPay(what: string, error: InsufficientFunds): InsufficientCredits {
    const plural = EXTERNAL_ANALYSIS_CREDITS === 1 ? 'credit' : 'credits';
    return new InsufficientCredits(
      error.needed,
      error.available,
      `${what} ${EXTERNAL_ANALYSIS_CREDITS} ${plural} per analysis and the account has ${fromMinor(error.available)} credits available; ` +
        (this.local ? 'use provider local (free), or get credits' : 'get credits to analyse images'),
    );
  }

  /** Ends the local worker threads (they also end by themselves when idle). */
  async close(): Promise<void> {
    await this.local?.close();
  }
}

/**
 * A GraphQL upload arrives as the server's own File class (yoga's), which the schema's z.file() does
 * not take for a file: the same bytes as Node's standard File. REST uploads are standard already.
 */
async function standardFile(file: Pick<File, 'arrayBuffer' | 'name' | 'type'> | null | undefined): Promise<File | undefined> {
  if (!file || file instanceof File) return file ?? undefined;
  return new File([await file.arrayBuffer()], file.name, { type: file.type });
}
