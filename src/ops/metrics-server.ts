import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";

export interface MetricsServer {
  /** The port it listens on (the one asked for, or the one the system chose for 0). */
  port: number;
  /** From now on /ready answers 200: the process's roles have started (restored, caught up, listening). */
  ready(): void;
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
 * same way. Two probes for an orchestrator: /live answers 200 while the process runs
 * (a restore can take minutes, and a liveness probe must not kill it for that), /ready once its
 * roles have started, so a rolling update waits for each new process to hold its work.
 */
export async function startMetricsServer(opts: {
  host: string;
  port: number;
  registry: Registry;
}): Promise<MetricsServer> {
  let state: "starting" | "ready" | "stopping" = "starting";
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (req.method !== "GET") return answer(res, 405, "text/plain", "GET only\n");
    if (path === "/live") return answer(res, 200, "text/plain", "ok\n");
    if (path === "/ready") return answer(res, state === "ready" ? 200 : 503, "text/plain", `${state}\n`);
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
    ready: () => {
      if (state === "starting") state = "ready";
    },
    stopping: () => {
      state = "stopping";
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function answer(res: import("node:http").ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { "content-type": type }).end(body);
}
