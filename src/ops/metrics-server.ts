import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { monitorEventLoopDelay } from "node:perf_hooks";
import type { Registry } from "prom-client";
import { type NotReady, notLive } from "./readiness.ts";

export interface MetricsServer {
  /** The port it listens on (the one asked for, or the one the system chose for 0). */
  port: number;
  /**
   * The process's roles have started: from now on /ready answers 200 whenever `notReady` has no
   * reason (a role still restoring or catching up after its start's wait), else 503 with it.
   */
  ready(notReady?: NotReady): void;
  /** From now on /ready answers 503 for good: the process is stopping (SIGTERM), so balancers drain it. */
  stopping(): void;
  close(): Promise<void>;
}

/**
 * The port a gateway's process serves its metrics on when METRICS_PORT is unset: the Prometheus
 * exporter port OpenTelemetry registered, the one deploy/compose and deploy/kubernetes set. The
 * gateway never serves /metrics on its API port (the relayer's balances and free inventory are the
 * operator's), so without this its series would not be served at all.
 */
export const DEFAULT_GATEWAY_METRICS_PORT = 9464;

/** Where a process serves its metrics: METRICS_PORT, else 9464 for a gateway, else nowhere. */
export function metricsPortOf(config: { METRICS_PORT?: number | undefined }, runsGateway: boolean) {
  return config.METRICS_PORT ?? (runsGateway ? DEFAULT_GATEWAY_METRICS_PORT : undefined);
}

/**
 * The metrics of a process on a port of its own (METRICS_PORT), never on the gateway's API port, so
 * every process (an actors, executor, webhooks, projector, indexer or gateway pod) is scraped the
 * same way. Two probes for an orchestrator (src/ops/readiness.ts): /live answers 200 while the
 * event loop turns without being held (a restore can take minutes, and a liveness probe must not
 * kill it for that), /ready once its roles have started and hold their work (restored, caught up)
 * and until its stop begins, so a rolling update waits for each new process to hold its work and a
 * balancer drains a stopping one.
 */
export async function startMetricsServer(opts: {
  host: string;
  port: number;
  registry: Registry;
}): Promise<MetricsServer> {
  let state: "starting" | "ready" | "stopping" = "starting";
  let notReady: NotReady = () => null;
  // The longest turn of the event loop since the last /live (ns; a 20 ms resolution is plenty).
  const turns = monitorEventLoopDelay({ resolution: 20 });
  turns.enable();
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (req.method !== "GET") return answer(res, 405, "text/plain", "GET only\n");
    if (path === "/live") {
      const held = notLive(turns.max / 1e6);
      turns.reset();
      return answer(res, held === null ? 200 : 503, "text/plain", `${held ?? "ok"}\n`);
    }
    if (path === "/ready") {
      const why = state === "ready" ? notReady() : state;
      return answer(res, why === null ? 200 : 503, "text/plain", `${why ?? "ready"}\n`);
    }
    if (path !== "/metrics") return answer(res, 404, "text/plain", "not found\n");
    opts.registry.metrics().then(
      (text) => answer(res, 200, opts.registry.contentType, text),
      (err: unknown) =>
        answer(res, 500, "text/plain", `${err instanceof Error ? err.message : String(err)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    ready: (check) => {
      if (state === "starting") state = "ready";
      if (check) notReady = check;
    },
    stopping: () => {
      state = "stopping";
    },
    close: () => {
      turns.disable();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function answer(res: import("node:http").ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { "content-type": type }).end(body);
}
