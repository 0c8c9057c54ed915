import type { Child } from "./child-process.ts";

/** How one request of the trickle ended. */
export interface TrickleOutcome {
  /** When it was sent, and when it ended (answered or failed), Unix ms. */
  at: number;
  endedAt: number;
  status?: number;
  retryAfter?: string | null;
  /** The answer's Connection header: "close" once the gateway drains. */
  connection?: string | null;
  /** The failure's code (ECONNREFUSED, ECONNRESET, ...) when no answer came. */
  error?: string;
}

export interface TrickleThroughStop {
  termAt: number;
  /** From SIGTERM until the metrics port's /ready first answered 503. */
  notReadyAfterMs: number;
  /** Requests sent to the gateway, and how many the balancer sent elsewhere once it acted on /ready 503. */
  outcomes: TrickleOutcome[];
  sentElsewhere: number;
  exit: number | string | null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * `clients` clients, each sending GET `path` one after another (`pauseMs` apart) on its kept-alive
 * connection, through a SIGTERM of `gateway` a second in, until it has exited.
 *
 * With `balancer`, the clients sit behind a balancer that polls the gateway's /ready every
 * `pollMs`, as a Kubernetes Service's endpoints follow the readiness probe, and acts on a 503
 * `lagMs` later (the endpoint's removal reaching the proxies), sending nothing more to this gateway
 * then (counted as sent elsewhere). That is the client the drain (SHUTDOWN_DRAIN_MS) is for, and the
 * lag makes sure some requests land in the drain. Without it (null) they keep connecting straight to the
 * stopping gateway: the moment its listener closes, a connection the kernel had completed but the
 * process never accepted is reset by the kernel (ECONNRESET for a request the gateway never read),
 * which no server can prevent; a bench shows how often (test/bench/graceful-stop.ts).
 */
export async function trickleThroughStop(opts: {
  gateway: Child;
  /** The gateway's metrics URL (its /ready). */
  metrics: string;
  path: string;
  clients: number;
  pauseMs: number;
  balancer: { pollMs: number; lagMs: number } | null;
}): Promise<TrickleThroughStop> {
  const { gateway } = opts;
  const ready = async () => (await fetch(`${opts.metrics}/ready`)).status === 200;
  let routed = true;
  let polling = opts.balancer !== null;
  const balancer = (async () => {
    while (polling && opts.balancer) {
      if (!(await ready().catch(() => false))) {
        await sleep(opts.balancer.lagMs);
        routed = false;
        return;
      }
      await sleep(opts.balancer.pollMs);
    }
  })();
  const outcomes: TrickleOutcome[] = [];
  let sentElsewhere = 0;
  let trickling = true;
  const client = async () => {
    while (trickling) {
      const at = Date.now();
      if (!routed) sentElsewhere++;
      else
        try {
          const res = await fetch(`${gateway.ready}${opts.path}`);
          await res.arrayBuffer();
          outcomes.push({
            at,
            endedAt: Date.now(),
            status: res.status,
            retryAfter: res.headers.get("retry-after"),
            connection: res.headers.get("connection"),
          });
        } catch (err) {
          const cause = (err as { cause?: { code?: string } }).cause;
          outcomes.push({ at, endedAt: Date.now(), error: cause?.code ?? String(err) });
        }
      await sleep(opts.pauseMs);
    }
  };
  const clients = Array.from({ length: opts.clients }, client);
  await sleep(1_000);
  const termAt = Date.now();
  process.kill(gateway.pid, "SIGTERM");
  let notReadyAfterMs = Number.NaN;
  while (Number.isNaN(notReadyAfterMs) && gateway.exited() === null) {
    if (!(await ready().catch(() => false))) notReadyAfterMs = Date.now() - termAt;
    else await sleep(10);
  }
  while (gateway.exited() === null) await sleep(50);
  // A little past the exit, so requests after the close are seen too.
  await sleep(300);
  trickling = false;
  polling = false;
  await Promise.all([...clients, balancer]);
  return { termAt, notReadyAfterMs, outcomes, sentElsewhere, exit: gateway.exited() };
}

/** The outcomes in one line: answered (and 503s), refused at connect, and any other failure by code. */
export function describeTrickle(t: TrickleThroughStop): string {
  const answered = t.outcomes.filter((o) => o.status !== undefined);
  const failed = new Map<string, number>();
  for (const o of t.outcomes) if (o.error) failed.set(o.error, (failed.get(o.error) ?? 0) + 1);
  return `/ready 503 after ${t.notReadyAfterMs} ms; ${answered.length} answered (${
    answered.filter((o) => o.status === 503).length
  } 503, ${answered.filter((o) => o.at >= t.termAt + t.notReadyAfterMs && o.connection === "close").length} sent in the drain, with Connection: close); failed: ${
    [...failed].map(([code, n]) => `${code} ${n}`).join(", ") || "none"
  }; ${t.sentElsewhere} sent elsewhere by the balancer; exit ${t.exit}`;
}
