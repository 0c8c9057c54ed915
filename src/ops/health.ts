import type { ChainAdapter } from "../chains/adapter.ts";
import type { HealthPort, HealthReport } from "../gateway/ports.ts";
import { type CassandraClient, ping } from "../store/cassandra.ts";
import { readFreshness } from "../store/indexer-checkpoints.ts";
import { withTimeout } from "../support/timeout.ts";

/**
 * /health: the database answers, every chain's indexer advanced recently, every relayer can pay
 * gas. Each check has its own timeout so one slow dependency cannot hang the endpoint.
 */
export function createHealth(deps: {
  cassandra: CassandraClient;
  chains: readonly ChainAdapter[];
  staleSeconds: number;
  timeoutMs?: number;
}): HealthPort {
  const timeoutMs = deps.timeoutMs ?? 2000;

  const database = async (): Promise<HealthReport["checks"]["database"]> => {
    const started = performance.now();
    try {
      await withTimeout(ping(deps.cassandra), timeoutMs);
      return { ok: true, latency_ms: Math.round(performance.now() - started), error: null };
    } catch (err) {
      return { ok: false, latency_ms: null, error: message(err) };
    }
  };

  const indexers = async (): Promise<HealthReport["checks"]["indexers"]> => {
    let rows: Awaited<ReturnType<typeof readFreshness>> = [];
    let error: string | null = null;
    try {
      rows = await withTimeout(readFreshness(deps.cassandra), timeoutMs);
    } catch (err) {
      error = message(err);
    }
    const now = Date.now();
    return deps.chains.map(({ chain: c }) => {
      const row = rows.find((r) => r.chainId === c.chainId);
      const lag = row?.updatedAt ? Math.max(0, Math.round((now - row.updatedAt) / 1000)) : null;
      return {
        chain_id: c.chainId,
        ok: lag !== null && lag <= deps.staleSeconds,
        last_block: row?.lastBlock !== undefined && row.lastBlock !== null ? Number(row.lastBlock) : null,
        lag_seconds: lag,
        error: error ?? (row ? null : "the indexer has not checkpointed yet"),
      };
    });
  };

  const relayers = async (): Promise<HealthReport["checks"]["relayers"]> =>
    Promise.all(
      deps.chains.map(async (adapter) => {
        const { relayer, minRelayerBalance } = adapter;
        const base = { chain_id: adapter.chain.chainId, min_balance_wei: String(minRelayerBalance) };
        if (!relayer)
          return { ...base, ok: false, address: null, balance_wei: null, error: "no relayer configured" };
        try {
          const balance = await withTimeout(adapter.relayerBalance(), timeoutMs);
          return {
            ...base,
            ok: balance >= minRelayerBalance,
            address: relayer,
            balance_wei: balance.toString(),
            error: null,
          };
        } catch (err) {
          return { ...base, ok: false, address: relayer, balance_wei: null, error: message(err) };
        }
      }),
    );

  return {
    async check() {
      const [db, idx, rel] = await Promise.all([database(), indexers(), relayers()]);
      return {
        healthy: db.ok && idx.every((i) => i.ok) && rel.every((r) => r.ok),
        checks: { database: db, indexers: idx, relayers: rel },
      };
    },
  };
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 300);
