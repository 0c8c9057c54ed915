import client from "prom-client";

/**
 * Prometheus metrics of this process, served at GET /metrics on its metrics port (METRICS_PORT;
 * src/ops/metrics-server.ts), never on the gateway's API port. Roles that run in the process add
 * their own series.
 */
export const registry = new client.Registry();
client.collectDefaultMetrics({ register: registry, prefix: "settlement_" });

export const httpRequests = new client.Counter({
  name: "settlement_http_requests_total",
  help: "HTTP requests answered by the gateway, by method, route and status",
  labelNames: ["method", "route", "status"] as const,
  registers: [registry],
});

export const httpDuration = new client.Histogram({
  name: "settlement_http_request_duration_seconds",
  help: "Time to answer an HTTP request",
  labelNames: ["route"] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
  registers: [registry],
});

export const projectedEvents = new client.Counter({
  name: "settlement_projector_events_total",
  help: "Session events folded into the read model",
  registers: [registry],
});

/**
 * The relayer's spending on sessions, from the RelayerGasSpent events the projector folds (each
 * session's own total is on its events; its budget is SESSION_RELAYER_BUDGET, in USDC base units).
 */
export const relayerGasUsed = new client.Counter({
  name: "settlement_relayer_gas_used_total",
  help: "Gas units the relayer spent on sessions' transactions (sweeps, bridge relays, refunds), by chain",
  labelNames: ["chain_id"] as const,
  registers: [registry],
});

export const relayerFeeWei = new client.Counter({
  name: "settlement_relayer_fee_wei_total",
  help: "Fees the relayer paid for sessions' transactions, in the chain's smallest unit, by chain",
  labelNames: ["chain_id"] as const,
  registers: [registry],
});

/**
 * The relayer's spend in one unit for every family (USDC base units, the ledger's: each mined
 * transaction's fee priced by its chain's fee price, rent included on Solana), by chain; the chain
 * id tells the family (chain ids are unique across families).
 */
export const relayerSpend = new client.Counter({
  name: "settlement_relayer_spend_usdc_total",
  help: "What the relayer spent on sessions' transactions, in USDC base units (every family alike), by chain",
  labelNames: ["chain_id"] as const,
  registers: [registry],
});

export const sessionRelayerSpend = new client.Histogram({
  name: "settlement_session_relayer_spend_usdc",
  help: "A session's relayer spend so far in USDC base units, observed at each of its transactions (SESSION_RELAYER_BUDGET bounds it)",
  buckets: [10_000, 100_000, 500_000, 1_000_000, 3_000_000, 6_000_000, 12_000_000],
  registers: [registry],
});

/** A gauge whose value is read when Prometheus scrapes, from the role that owns the number. */
export function gaugeFrom(
  name: string,
  help: string,
  labelNames: string[],
  read: () => Array<{ labels: Record<string, string | number>; value: number }>,
) {
  // A role started again in the same process (tests) replaces its gauge rather than failing.
  registry.removeSingleMetric(name);
  return new client.Gauge({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      this.reset();
      for (const { labels, value } of read()) this.set(labels, value);
    },
  });
}
