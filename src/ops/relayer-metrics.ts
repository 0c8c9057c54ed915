import client from "prom-client";
import type { ChainAdapter } from "../chains/adapter.ts";
import { withTimeout } from "../support/timeout.ts";
import { registry } from "./metrics.ts";

/** A balance read that does not answer in this long is left out of the scrape rather than hang it. */
const READ_TIMEOUT_MS = 2000;

/**
 * The relayer's balance and its floor on each chain, read from the chain when Prometheus scrapes
 * (what /health checks, as a series an alert can follow: deploy/kubernetes/base/alerts.yaml). In
 * the chain's smallest unit (wei, lamports) as a float: exact to 2^53, plenty to compare with a
 * floor. A chain without a relayer, or whose read fails, has no balance series that scrape.
 */
export function relayerBalanceMetrics(chains: readonly ChainAdapter[]): void {
  for (const name of ["settlement_relayer_balance", "settlement_relayer_min_balance"])
    registry.removeSingleMetric(name);
  new client.Gauge({
    name: "settlement_relayer_min_balance",
    help: "The relayer balance below which /health fails, in the chain's smallest unit, by chain",
    labelNames: ["chain_id"],
    registers: [registry],
    collect() {
      for (const c of chains) this.set({ chain_id: c.chain.chainId }, Number(c.minRelayerBalance));
    },
  });
  new client.Gauge({
    name: "settlement_relayer_balance",
    help: "The relayer's balance in the chain's smallest unit (wei, lamports), read at scrape, by chain",
    labelNames: ["chain_id"],
    registers: [registry],
    async collect() {
      this.reset();
      const reads = await Promise.allSettled(
        chains
          .filter((c) => c.relayer !== null)
          .map(async (c) => ({ c, balance: await withTimeout(c.relayerBalance(), READ_TIMEOUT_MS) })),
      );
      for (const r of reads)
        if (r.status === "fulfilled")
          this.set({ chain_id: r.value.c.chain.chainId }, Number(r.value.balance));
    },
  });
}
