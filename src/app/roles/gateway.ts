import { solanaSideOf } from "../../chains/solana-side.ts";
import { createStealthRelays } from "../../chains/stealth-relays.ts";
import { chainProviders } from "../../chains/vendors.ts";
import { createGateway } from "../../gateway/app.ts";
import { createOperator } from "../../operator/operator.ts";
import { createHealth } from "../../ops/health.ts";
import { followActiveReadModel } from "../../projections/active-read-model.ts";
import { createSessionReads, storedWhenProjected } from "../../projections/session-reads.ts";
import { providerSettings } from "../../providers/settings.ts";
import { executorLedger } from "../../store/executor-ledger.ts";
import { merchantEvents } from "../../store/merchant-events.ts";
import { readModelControlStore } from "../../store/read-model-control.ts";
import { webhookDeliveries } from "../../store/webhook-deliveries.ts";
import { entityGatewayDeps } from "../entity-modules/start.ts";
import { startGatewayBus } from "../gateway-bus.ts";
import { roleGroups } from "../role-groups.ts";
import type { RoleModule } from "../shared.ts";

/** Sessions whose newest state a gateway keeps in memory for GET /sessions/:id. */
const CACHED_SESSIONS = 50_000;

/** The HTTP API: commands to session.commands, reads from the read model and session.state. */
export const gatewayRole: RoleModule = {
  name: "gateway",
  async start(shared, log) {
    const { config } = shared;
    const bus = await startGatewayBus(shared, log);
    // The table the read-model control record names active, followed (docs/OPERATIONS.md, "Read models").
    const control = readModelControlStore(shared.cassandra);
    const readModel = await followActiveReadModel({
      cassandra: shared.cassandra,
      control,
      pollMs: config.READ_MODEL_POLL_MS,
      log,
    });
    // The owner's reply comes in the transaction that wrote the state on session.state: a 2xx
    // needs no projection, every gateway finds that state (src/projections/session-reads.ts).
    const commands = bus.commands;
    const sessions = createSessionReads({
      readModel,
      lastReplied: bus.lastReplied,
      committed: bus.committedStates,
      cache: { live: bus.live, ttlMs: config.SESSION_CACHE_TTL_MS, maxSessions: CACHED_SESSIONS },
    });
    // The entities' routes: each enabled module's share (src/app/entity-modules/).
    // Their stored-session reads (checkout guards, stealth facts) wait for a row the projector has
    // not written yet, for a session that exists: a write answers before its projection.
    const entities = entityGatewayDeps({
      shared,
      bus,
      commands,
      readModel: storedWhenProjected({ readModel, sessions, timeoutMs: config.REPLY_TIMEOUT_MS }),
    });
    const app = await createGateway({
      config,
      chains: shared.chains,
      commands,
      live: bus.live,
      sessions,
      health: createHealth({
        cassandra: shared.cassandra,
        chains: shared.chains,
        staleSeconds: config.INDEXER_STALE_SECONDS,
      }),
      ...entities,
      // The Solana routes exist when a Solana chain is configured (docs/SOLANA.md).
      solana: solanaSideOf(shared.chains),
      // Token options, balances, swap quotes: the configured providers, else the local stack's servers.
      providers: chainProviders(config.chains ?? [], providerSettings(config, shared.infra.providers)),
      // Sent through the executor's ledger-backed relayer wallets: nonces shared safely with settlement.
      ...createStealthRelays({
        chains: config.chains ?? [],
        ledger: executorLedger(shared.cassandra),
        maxFee: config.STEALTH_WITHDRAW_MAX_FEE,
        // The fee floor at the gateway's DEX price, as the refund fee floor is priced.
        gasInUsdc: (chainId, usdc, gas) =>
          shared.chains.find((a) => a.chain.chainId === chainId)?.gateway.gasValue(usdc, gas) ??
          Promise.resolve(null),
        usdcPerEth: config.STEALTH_WITHDRAW_USDC_PER_ETH,
        stuckAfterMs: config.EXECUTOR_STUCK_AFTER_MS,
        feeBumpPercent: config.EXECUTOR_FEE_BUMP_PERCENT,
      }),
      webhookDeliveries: webhookDeliveries(shared.cassandra),
      merchantEvents: merchantEvents(shared.cassandra),
      operator: config.OPERATOR_SECRET
        ? createOperator({
            kafka: shared.kafka,
            settings: {
              kafka: { brokers: shared.infra.brokers, clientId: `${config.KAFKA_CLIENT_ID}.operator` },
              cassandra: shared.infra.cassandra,
            },
            codecs: shared.codecs,
            readModel,
            control,
            groups: (models) => roleGroups(shared, models),
          })
        : undefined,
      logger: log,
      metrics: shared.metrics.registry,
    });
    // From the drain on, every answer closes its connection: a client's next request opens a new
    // one, which the balancer sends to another gateway, and none is cut while idle at the close.
    let draining = false;
    app.addHook("onSend", async (_request, reply) => {
      if (draining) reply.header("connection", "close");
    });
    const address = await app.listen({ host: config.HOST, port: config.PORT });
    return {
      role: "gateway",
      summary: `listening on ${config.PUBLIC_URL ?? address} (docs at /docs, OpenAPI at /openapi.json)`,
      drain() {
        draining = true;
      },
      // Stops accepting, answers the requests it holds (new ones on held connections: 503 with
      // Retry-After, src/gateway/app.ts), then the bus its answers wait on.
      async stop() {
        await app.close();
        await bus.stop();
        await readModel.stop();
      },
    };
  },
};
