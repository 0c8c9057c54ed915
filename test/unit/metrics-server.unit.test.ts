import client from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChainAdapter } from "../../src/chains/adapter.ts";
import { registry } from "../../src/ops/metrics.ts";
import { type MetricsServer, metricsPortOf, startMetricsServer } from "../../src/ops/metrics-server.ts";
import { relayerBalanceMetrics } from "../../src/ops/relayer-metrics.ts";

describe("the metrics port of a process (METRICS_PORT)", () => {
  let server: MetricsServer;
  const own = new client.Registry();
  new client.Counter({ name: "probe_total", help: "a series of this test", registers: [own] }).inc(3);
  const url = (path: string) => `http://127.0.0.1:${server.port}${path}`;
  beforeAll(async () => {
    server = await startMetricsServer({ host: "127.0.0.1", port: 0, registry: own });
  });
  afterAll(() => server.close());

  it("is live at once and ready only once told its roles started", async () => {
    expect((await fetch(url("/live"))).status).toBe(200);
    expect((await fetch(url("/ready"))).status).toBe(503);
    server.ready();
    expect((await fetch(url("/ready"))).status).toBe(200);
  });

  it("once started, answers /ready 503 with a role's reason while it does not hold its work yet", async () => {
    let restoring = true;
    server.ready(() => (restoring ? "session actors: partitions still restoring" : null));
    const waiting = await fetch(url("/ready"));
    expect([waiting.status, await waiting.text()]).toEqual([
      503,
      "session actors: partitions still restoring\n",
    ]);
    restoring = false;
    expect((await fetch(url("/ready"))).status).toBe(200);
  });

  it("on a stop answers /ready 503 for good (a balancer drains it) while /live stays 200", async () => {
    server.stopping();
    server.ready();
    const ready = await fetch(url("/ready"));
    expect([ready.status, await ready.text()]).toEqual([503, "stopping\n"]);
    expect((await fetch(url("/live"))).status).toBe(200);
  });

  it("serves the registry in Prometheus's text format, and nothing else", async () => {
    const res = await fetch(url("/metrics"));
    expect(res.headers.get("content-type")).toBe(own.contentType);
    expect(await res.text()).toContain("probe_total 3");
    expect((await fetch(url("/other"))).status).toBe(404);
    expect((await fetch(url("/metrics"), { method: "POST" })).status).toBe(405);
  });
});

describe("where a process serves its metrics", () => {
  it("METRICS_PORT when set; unset, 9464 for a process with the gateway and none for any other", () => {
    expect([metricsPortOf({ METRICS_PORT: 9100 }, true), metricsPortOf({ METRICS_PORT: 0 }, false)]).toEqual([
      9100, 0,
    ]);
    expect([metricsPortOf({}, true), metricsPortOf({}, false)]).toEqual([9464, undefined]);
  });
});

describe("relayer balance series", () => {
  const chain = (chainId: number, relayer: string | null, balance: () => Promise<bigint>) =>
    ({
      chain: { chainId },
      relayer,
      minRelayerBalance: 5n * 10n ** 16n,
      relayerBalance: balance,
    }) as unknown as ChainAdapter;

  it("reads each relayer's balance at scrape, beside its floor; a failed read leaves its series out", async () => {
    relayerBalanceMetrics([
      chain(1, "0xaa", async () => 2n * 10n ** 17n),
      chain(2, "0xbb", async () => {
        throw new Error("rpc down");
      }),
      chain(3, null, async () => 0n),
    ]);
    const text = await registry.getSingleMetricAsString("settlement_relayer_balance");
    expect(text).toContain('settlement_relayer_balance{chain_id="1"} 200000000000000000');
    expect(text).not.toContain('chain_id="2"');
    expect(text).not.toContain('chain_id="3"');
    const floors = await registry.getSingleMetricAsString("settlement_relayer_min_balance");
    for (const id of [1, 2, 3])
      expect(floors).toContain(`settlement_relayer_min_balance{chain_id="${id}"} 50000000000000000`);
  });
});
