// Text-to-image generation (spec "Generation"): POST /api/generate answers at once, POST
// /api/replace/generate is a queued job (generation.job.ts), POST /api/replace/batch runs up to ten
// descriptions at once. The rules in order: the `generate` scope, the input (400), the style preset
// (400 unknown, 402 STYLE_LOCKED), a configured provider (503), the price held in credits (402), then
// the providers in cost order (provider-chain.ts); only delivered images are charged.
import PQueue from 'p-queue';
import type { z } from 'zod';
import type { Logger } from '../../platform/logger.js';
import type { JobQueue } from '../../platform/queue/job-queue.js';
import { AppError } from '../../platform/errors.js';
import { parseInput } from '../../platform/validation.js';
import type { Actor } from '../accounts/index.js';
import { SCOPE, requireKey } from '../access/index.js';
import type { StylePreset, StylesService } from '../economy/index.js';
import type { Job, JobsService } from '../jobs/index.js';
import { InsufficientCredits, toMinor, fromMinor, type CreditHold } from '../ledger/index.js';
import type { GenerationBilling } from './generation.billing.js';
import type { GenerationJobInput } from './generation.job.js';
import { batchSchema, generateSchema, replaceGenerateSchema } from './generation.input.js';
import { styledPrompt, variationTitle } from './generation.prompts.js';
import type { GenerationProviderName } from './generation.settings.js';
import type { GeneratedImage, ProviderChain } from './provider-chain.js';

export const GENERATION_JOB_KIND = 'generate';

export interface ImageView {
  index: number;
  title: string;
  provider: GenerationProviderName;
  /** data:image/png;base64,... */
  url: string;
}

export interface GenerateResult {
  prompt: string;
  /** Images delivered (a provider may deliver fewer than asked; only those are charged). */
  count: number;
  provider: GenerationProviderName;
  images: ImageView[];
  creditsCharged: number;
}

export interface BatchItem {
  index: number;
  description: string;
  success: boolean;
  provider: GenerationProviderName | null;
  images: ImageView[];
  error: string | null;
  /** The HTTP status this description alone would have had (200, or the failure's). */
  status: number;
}

export interface BatchResult {
  count: number;
  succeeded: number;
  failed: number;
  results: BatchItem[];
  creditsCharged: number;
}

export interface GenerationDependencies {
  chain: ProviderChain;
  styles: Pick<StylesService, 'requireUsable'>;
  /** Null when images are free (GENERATE_CREDITS_PER_IMAGE=0). */
  billing: GenerationBilling | null;
  jobs: JobsService;
  queue: JobQueue;
  logger: Logger;
  batchConcurrency: number;
}

export class GenerationService {
  constructor(private readonly deps: GenerationDependencies) {}

  get chain(): ProviderChain {
    return this.deps.chain;
  }

  /** POST /api/generate. */
  async generate(actor: Actor | null, input: Record<string, unknown>): Promise<GenerateResult> {
    const { caller, request, style } = await this.admit(actor, generateSchema, input);
    const { chain } = this.deps;
    chain.vendorFor(request.vendor_key);
    const hold = await this.deps.billing?.hold(caller.accountId, request.count, `generate:${style.slug}`);
    const result = await this.releasingOnFailure(hold, () =>
      chain.generate({ prompt: styledPrompt(request.prompt, style), orientation: request.orientation, count: request.count, vendorKey: request.vendor_key }),
    );
    const charged = await this.settle(hold, caller.accountId, result.images.length, `generate:${result.provider}`);
    return { prompt: request.prompt, count: result.images.length, provider: result.provider, images: views(result.images, style, result.provider), creditsCharged: charged };
  }

  /** POST /api/replace/batch: one image per description, GENERATE_BATCH_CONCURRENCY at once, results in order. */
  async batch(actor: Actor | null, input: Record<string, unknown>): Promise<BatchResult> {
    const { caller, request, style } = await this.admit(actor, batchSchema, input);
    const hold = await this.deps.billing?.hold(caller.accountId, request.descriptions.length, `batch:${style.slug}`);
    const queue = new PQueue({ concurrency: this.deps.batchConcurrency });
    const one = async (description: string, index: number): Promise<BatchItem> => {
      try {
        const made = await this.deps.chain.generate({ prompt: styledPrompt(description, style), orientation: 'landscape', count: 1 });
        return { index, description, success: true, provider: made.provider, images: views(made.images, style, made.provider), error: null, status: 200 };
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        return { index, description, success: false, provider: null, images: [], error: error.message, status: error.status };
      }
    };
    const results = await this.releasingOnFailure(hold, () => Promise.all(request.descriptions.map((description, index) => queue.add(() => one(description, index)))));
    const delivered = results.reduce((n, r) => n + r.images.length, 0);
    const charged = await this.settle(hold, caller.accountId, delivered, `batch:${request.descriptions.length}`);
    const succeeded = results.filter((r) => r.success).length;
    return { count: results.length, succeeded, failed: results.length - succeeded, results, creditsCharged: charged };
  }

  /**
   * POST /api/replace/generate: checks what can be checked now (scope, input, style, a configured
   * provider, credits for every image) and queues the job; the job holds and charges when it runs.
   */
  async startReplace(actor: Actor | null, input: Record<string, unknown>): Promise<Job> {
    const { caller, request, style } = await this.admit(actor, replaceGenerateSchema, input);
    const { billing } = this.deps;
    if (billing) {
      const needed = request.count * billing.creditsPerImage;
      const available = await billing.available(caller.accountId);
      if (available < needed) throw new InsufficientCredits(toMinor(needed)!, toMinor(available) ?? 0, `this job needs ${needed} credits (${billing.creditsPerImage} per image) and the account has ${available} credits available`);
    }
    const jobInput: GenerationJobInput = { description: request.description, style: style.slug, styleName: style.name, count: request.count, orientation: 'landscape' };
    const job = await this.deps.jobs.create(caller, GENERATION_JOB_KIND, { ...jobInput });
    await this.deps.jobs.enqueueOrWithdraw(this.deps.queue, job);
    return job;
  }

  /** The checks every route makes first, in order: the generate scope, the input (400), the style (400, 402), a configured provider (503). */
  private async admit<S extends z.ZodType<{ style: string }>>(actor: Actor | null, schema: S, input: Record<string, unknown>): Promise<{ caller: Actor; request: z.output<S>; style: StylePreset }> {
    const caller = requireKey(actor, SCOPE.generate);
    const request = parseInput(schema, input);
    const style = await this.deps.styles.requireUsable(caller, request.style);
    this.deps.chain.requireConfigured();
    return { caller, request, style };
  }

  /** Runs the paid work; when it throws, the hold is released before the error goes on. */
  private async releasingOnFailure<T>(hold: CreditHold | undefined, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (hold) await this.release(hold);
      throw error;
    }
  }

  /** Charges `delivered` images of the hold and releases the rest; the credits charged. */
  private async settle(hold: CreditHold | undefined, accountId: number, delivered: number, reference: string): Promise<number> {
    const { billing } = this.deps;
    if (!hold || !billing) return 0;
    try {
      await billing.settle(hold, accountId, [{ id: `generate:${hold.id}`, images: delivered, reference }]);
    } catch (error) {
      // The images were made: they are answered; the hold expires and the sweep releases it.
      this.deps.logger.error({ err: error, hold: hold.id }, 'generation: could not settle the credit hold');
      return 0;
    }
    return fromMinor(toMinor(delivered * billing.creditsPerImage)!);
  }

  private async release(hold: CreditHold): Promise<void> {
    try {
      await this.deps.billing!.release(hold);
    } catch (error) {
      this.deps.logger.error({ err: error, hold: hold.id }, 'generation: could not release the credit hold');
    }
  }
}

export function views(images: GeneratedImage[], style: Pick<StylePreset, 'name'>, provider: GenerationProviderName): ImageView[] {
  return images.map((image, index) => ({ index, title: variationTitle(style, index), provider, url: `data:image/png;base64,${image.png.toString('base64')}` }));
}
