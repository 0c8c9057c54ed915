import { TOPIC } from "../../../topics/catalogue.ts";
import { createExecutor, EXECUTOR_GROUP } from "../../executor/executor.ts";
import { fillMetrics } from "../../ops/fill-metrics.ts";
import { relayerBalanceMetrics } from "../../ops/relayer-metrics.ts";
import type { RoleModule } from "../shared.ts";

/** executor.commands -> the chains (sweeps, bridge relays, refunds) -> executor.results. */
export const executorRole: RoleModule = {
  name: "executor",
  async start(shared, log) {
    const c = shared.config;
    const executor = createExecutor({
      kafka: shared.kafka,
      codecs: shared.codecs,
      cassandra: shared.cassandra,
      chains: shared.chains,
      log,
      settings: {
        stuckAfterMs: c.EXECUTOR_STUCK_AFTER_MS,
        feeBumpPercent: c.EXECUTOR_FEE_BUMP_PERCENT,
        bridgeFinality: c.EXECUTOR_BRIDGE_FINALITY,
        bridgeMaxFeeBps: c.EXECUTOR_BRIDGE_MAX_FEE_BPS,
        attestationApiUrl: c.ATTESTATION_API_URL ?? shared.infra.attestationApiUrl,
        attestationTimeoutMs: c.ATTESTATION_TIMEOUT_MS,
        attestationPollMs: c.ATTESTATION_POLL_MS,
        attestationMaxPerSecond: c.ATTESTATION_MAX_PER_SECOND,
        maxAttempts: c.EXECUTOR_MAX_ATTEMPTS,
        baseMs: c.EXECUTOR_RETRY_BASE_MS,
        maxMs: c.EXECUTOR_RETRY_MAX_MS,
        concurrency: c.EXECUTOR_CONCURRENCY,
        fill: { floor: c.FILL_INVENTORY_FLOOR, retryMs: c.FILL_RETRY_MS, maxWaitMs: c.FILL_MAX_WAIT_MS },
      },
      fillGauges: fillMetrics(),
    });
    await executor.start();
    shared.metrics.gaugeFrom(
      "settlement_executor_commands_in_flight",
      "Executor commands this process is working on (sent, waiting to be mined, relayed or attested)",
      [],
      () => [{ labels: {}, value: executor.inFlight() }],
    );
    // The relayers this process signs with: their balances, for the low-balance alert.
    relayerBalanceMetrics(shared.chains);
    return {
      role: "executor",
      summary: `${TOPIC.executorCommands} in group "${EXECUTOR_GROUP}" -> relayers on chains ${
        executor.chainIds.join(", ") || "(none: no relayer keys)"
      } -> ${TOPIC.executorResults}`,
      // Half the stop's bound for the steps in flight: the rest is leaving the group and the roles after.
      stop: () => executor.stop(Math.floor(c.SHUTDOWN_TIMEOUT_MS / 2)),
    };
  },
};
