import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";

export interface MetricsServer {
  /** The port it listens on (the one asked for, or the one the system chose for 0). */
  port: number;
  /** From now on /ready answers 200: the process's roles have started (restored, caught up, listening). */
  ready(): void;
  close(): Promise<void>;
}

/**
 * The metrics of a process on a port of its own (METRICS_PORT), so a process without a gateway (an
 * actors, executor, webhooks, projector or indexer pod) is scraped too; the gateway also serves
 * them on its API port. Two probes for an orchestrator: /live answers 200 while the process runs
 * (a restore can take minutes, and a liveness probe must not kill it for that), /ready once its
 * roles have started, so a rolling update waits for each new process to hold its work.
 */
export async function startMetricsServer(opts: {
  host: string;
  port: number;
  registry: Registry;
}): Promise<MetricsServer> {
  let isReady = false;
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (req.method !== "GET") return answer(res, 405, "text/plain", "GET only\n");
    if (path === "/live") return answer(res, 200, "text/plain", "ok\n");
    if (path === "/ready")
      return answer(res, isReady ? 200 : 503, "text/plain", isReady ? "ready\n" : "starting\n");
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
      isReady = true;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function answer(res: import("node:http").ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { "content-type": type }).end(body);
}
