/** One thing a process stops on SIGTERM: a role, its Cassandra session, its metrics server. */
export interface StopStep {
  name: string;
  stop(): Promise<void>;
}

/** How one step's stop went: how long it took, and why it failed if it did (a failure does not end the stop). */
export interface StepStopped {
  name: string;
  tookMs: number;
  error?: string;
}

export type StopOutcome =
  | { kind: "stopped"; tookMs: number; steps: StepStopped[] }
  /** The bound ran out while `stillStopping` was stopping; the steps after it were never begun. */
  | { kind: "timed-out"; tookMs: number; steps: StepStopped[]; stillStopping: string };

/**
 * Stops the steps one after another (each once the one before is done, as the roles depend on each
 * other), all within `boundMs` (SHUTDOWN_TIMEOUT_MS). A step that fails is recorded and the next one
 * begins; a step still running when the bound ends is given up on, and the outcome says which, so
 * the process can say so and exit non-zero rather than hang until the orchestrator's SIGKILL.
 * `onStep` hears of each step as it ends (the process logs it).
 */
export async function stopInTurn(
  steps: readonly StopStep[],
  opts: { boundMs: number; onStep?: (s: StepStopped) => void; now?: () => number },
): Promise<StopOutcome> {
  const now = opts.now ?? (() => performance.now());
  const began = now();
  const done: StepStopped[] = [];
  let current = "";
  const inTurn = (async () => {
    for (const step of steps) {
      current = step.name;
      const t0 = now();
      const error = await step.stop().then(
        () => undefined,
        (err: unknown) => (err instanceof Error ? err.message : String(err)),
      );
      const stopped: StepStopped = { name: step.name, tookMs: Math.round(now() - t0) };
      if (error !== undefined) stopped.error = error;
      done.push(stopped);
      opts.onStep?.(stopped);
    }
    return true;
  })();
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), opts.boundMs);
  });
  const finished = await Promise.race([inTurn, bound]);
  clearTimeout(timer);
  const tookMs = Math.round(now() - began);
  return finished
    ? { kind: "stopped", tookMs, steps: done }
    : { kind: "timed-out", tookMs, steps: [...done], stillStopping: current };
}

/**
 * How long the drain before the stop lasts: only a process that serves the API drains (a balancer
 * must see it not ready before it stops accepting; a consumer leaves its groups at once), and only
 * on SIGTERM, an orchestrator replacing it: SIGINT is someone at a terminal, not kept waiting.
 */
export const drainFor = (signal: NodeJS.Signals, drainMs: number, servesApi: boolean): number =>
  signal === "SIGTERM" && servesApi ? drainMs : 0;
