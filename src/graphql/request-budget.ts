// A sub-key's request budget (its `credit_limit`) pays for accepted requests only. The unit is
// taken with the request's other counters when the context is made (one SQL statement, exact under
// concurrency) and given back when the request turns out to be refused: for the key (401, 403), for
// its input (400, 413) or for an object that is missing or not the caller's (404). A request that
// did work, or failed after it was accepted (409, 429, 5xx), keeps it spent.
//
// What counts as refused is read from the operation's outcome: the refusals plugin below records
// each root field that got past scope-auth and was accepted (answered, or failed for another reason
// than a refusal) or refused (a refusal thrown, or answered as a ServiceError result); the GraphQL
// errors say which fields were refused deeper down (a nested field out of scope). A request is
// refused when no root field of it was accepted and nothing failed after acceptance.
import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from '@pothos/core';
import type { ExecutionResult, GraphQLError, GraphQLFieldResolver } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { AppError } from '../platform/errors.js';
import { isGraphQLError } from './errors.js';

const REFUSAL_STATUSES = new Set([400, 401, 403, 404, 413]);

/** What the context keeps of a request's budget unit. */
export interface BudgetHolder {
  /** Response keys of root fields that passed scope-auth and were not refused. */
  acceptedFields: Set<string>;
  /** Response keys of root fields refused inside their resolver (thrown, or a ServiceError result). */
  refusedFields: Set<string>;
  /** Gives the unit back (once; nothing for keys without a budget). */
  refundBudget(): Promise<void>;
  /** Root fields that have started; the first is paid by the request's own unit. */
  rootFieldsStarted: number;
  /**
   * Outcomes of root fields still running: GraphQL answers as soon as a non-null root field fails,
   * while its siblings may still run, so the outcome is judged once they have all settled.
   */
  rootFieldsRunning: Array<Promise<unknown>>;
  /**
   * Work is counted by root field, so aliases cannot multiply it: every root field after the first
   * takes a unit of every counter (daily, per minute, budget), or throws 429. Nothing without a key.
   */
  chargeRootField(): Promise<void>;
  /** Gives back the budget unit of a further root field that was refused. */
  refundRootField(): Promise<void>;
}

export function isRefusal(error: unknown): boolean {
  return REFUSAL_STATUSES.has(statusOf(error));
}

function statusOf(error: unknown): number {
  if (error instanceof AppError || isWrappedAppError(error)) return error.status;
  if (isGraphQLError(error)) {
    if (error.originalError && error.originalError !== error) return statusOf(error.originalError);
    const http = error.extensions?.http as { status?: number } | undefined;
    if (typeof http?.status === 'number') return http.status;
    return typeof error.extensions?.status === 'number' ? error.extensions.status : 500;
  }
  // Pothos refuses bad connection arguments with this error (a 400 once masked).
  if (error instanceof Error && error.name === 'PothosValidationError') return 400;
  return 500;
}

/**
 * The errors plugin answers a thrown AppError as a proxy whose prototype chain is proxied too, so
 * `instanceof` fails on it: recognise it by its shape (an error's stack, an AppError's status and code).
 */
function isWrappedAppError(value: unknown): value is AppError {
  const candidate = value as Partial<AppError> | null;
  return typeof candidate === 'object' && candidate !== null && typeof candidate.stack === 'string' && typeof candidate.status === 'number' && typeof candidate.code === 'string';
}

/** True when no root field of the operation was accepted and at least one was refused. */
export function operationRefused(result: ExecutionResult, holder: BudgetHolder): boolean {
  const errors: readonly GraphQLError[] = result.errors ?? [];
  if (!errors.every(isRefusal)) return false;
  const refusedBelow = new Set(errors.map((e) => e.path?.[0]));
  const accepted = [...holder.acceptedFields].filter((key) => !refusedBelow.has(key));
  return accepted.length === 0 && (errors.length > 0 || holder.refusedFields.size > 0);
}

/** The envelope plugin: refunds the budget unit of refused operations (HTTP, WebSocket and the REST shim). */
export function useRequestBudget(): Plugin<BudgetHolder> {
  return {
    onExecute: () => ({
      onExecuteDone: async ({ args, result }) => {
        if (Symbol.asyncIterator in result) return;
        await Promise.allSettled(args.contextValue.rootFieldsRunning);
        if (operationRefused(result, args.contextValue)) await args.contextValue.refundBudget();
      },
    }),
    onSubscribe: () => ({
      onSubscribeResult: ({ args, result }) => {
        if (Symbol.asyncIterator in result) return;
        if (operationRefused(result, args.contextValue)) void args.contextValue.refundBudget();
      },
    }),
  };
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  export namespace PothosSchemaTypes {
    export interface Plugins<Types extends SchemaTypes> {
      refusals: RefusalsPlugin<Types>;
    }
  }
}

/**
 * Records root fields whose result is a refusal answered as data (the errors plugin turns thrown
 * AppErrors into ServiceError results). Listed right after scope-auth, so it sees those results.
 */
export class RefusalsPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override wrapResolve(
    resolver: GraphQLFieldResolver<unknown, Types['Context'], object>,
    fieldConfig: PothosOutputFieldConfig<Types>,
  ): GraphQLFieldResolver<unknown, Types['Context'], object> {
    if (fieldConfig.kind !== 'Query' && fieldConfig.kind !== 'Mutation') return resolver;
    return (parent, args, context, info) => {
      const holder = context as BudgetHolder;
      const key = String(info.path.key);
      const further = holder.rootFieldsStarted++ > 0;
      const record = (outcome: unknown) => {
        const refused = isRefusal(outcome);
        (refused ? holder.refusedFields : holder.acceptedFields).add(key);
        if (refused && further) void holder.refundRootField();
      };
      const answered = (value: unknown) => {
        record(value);
        return value;
      };
      const failed = (error: unknown): never => {
        record(error);
        throw error;
      };
      const run = () => {
        try {
          const value = resolver(parent, args, context, info);
          return value instanceof Promise ? value.then(answered, failed) : answered(value);
        } catch (error) {
          return failed(error);
        }
      };
      // A further root field pays its own unit before it runs (a 429 refuses only that field).
      const outcome = further ? holder.chargeRootField().then(run) : run();
      if (outcome instanceof Promise) holder.rootFieldsRunning.push(outcome);
      return outcome;
    };
  }
}

SchemaBuilder.registerPlugin('refusals', RefusalsPlugin);
