/**
 * The one error model of the service (after viem's `BaseError` and Restate's `TerminalError`).
 * Every error class in src/ extends BaseError, so whatever catches an error can ask it three things
 * without knowing where it came from:
 *
 * - `code`: a stable snake_case name, safe to log, count and document (it never changes with wording);
 * - `retryable`: whether doing the same thing again may succeed (an RPC timeout, a broker leader
 *   change). The opposite is *terminal* (a bad signature, a malformed record, a reorg deeper than we
 *   remember): retrying only repeats the failure, so the runtime stops and says so instead;
 * - `shortMessage` and `details`: one line for a human, then optional lines that say more (which
 *   field, which block). `message` is both, one per line, as `Error` printers expect.
 *
 * Where an error ends up at the HTTP edge, its status comes from the gateway's registry
 * (src/gateway/errors.ts), never from the error: the same code means the same status everywhere.
 */

export interface BaseErrorOptions {
  /** Lines after the short message, e.g. one per invalid field. Written indented under it. */
  details?: readonly string[] | undefined;
  cause?: unknown;
}

export abstract class BaseError<Code extends string = string> extends Error {
  override name = "BaseError";
  abstract readonly code: Code;
  abstract readonly retryable: boolean;
  readonly shortMessage: string;
  readonly details: readonly string[];

  constructor(shortMessage: string, options: BaseErrorOptions = {}) {
    const details = options.details ?? [];
    super(
      [shortMessage, ...details.map((line) => `  ${line}`)].join("\n"),
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.shortMessage = shortMessage;
    this.details = details;
  }

  /** Retrying cannot help: the same input fails the same way. */
  get terminal(): boolean {
    return !this.retryable;
  }
}

/**
 * A terminal error whose code is given where it is raised (Restate's TerminalError), for failures
 * too rare to deserve a class of their own. A retryable failure names its class: it is the one a
 * caller may want to tell apart.
 */
export class TerminalError<Code extends string = string> extends BaseError<Code> {
  override name = "TerminalError";
  readonly retryable = false;
  constructor(
    readonly code: Code,
    shortMessage: string,
    options?: BaseErrorOptions,
  ) {
    super(shortMessage, options);
  }
}

/** Only errors that say they are retryable are: an error of unknown origin is not assumed transient. */
export const isRetryable = (err: unknown): boolean => err instanceof BaseError && err.retryable;

/**
 * Only errors that say they are terminal are: for loops that retry anything else (an indexer
 * following a chain treats an unknown RPC failure as transient, since it resumes from a checkpoint).
 */
export const isTerminal = (err: unknown): boolean => err instanceof BaseError && !err.retryable;
