import { createPublicClient, http } from "viem";
import { TOPIC } from "../../topics/catalogue.ts";
import { createActorHost } from "../actors/host.ts";
import { createSnapshotStore } from "../actors/snapshots.ts";
import { createEvmIndexer } from "../chains/evm/indexer.ts";
import type { Config } from "../config.ts";
import { createGateway } from "../gateway/app.ts";
import { createBatchConsumer, createPlainProducer } from "../kafka/at-least-once.ts";
import type { KafkaClient } from "../kafka/client.ts";
import { sessionEventCodec, transferObservedCodec } from "../kafka/codecs.ts";
import { createGatewayBus } from "../kafka/gateway-bus.ts";
import { waitForGroupCaughtUp } from "../kafka/topics.ts";
import type { Logger } from "../logging.ts";
import { createHealth } from "../ops/health.ts";
import { gaugeFrom, registry } from "../ops/metrics.ts";
import { createProjector, PROJECTOR_GROUP } from "../projections/projector.ts";
import { createSessionReadModel } from "../projections/read-model.ts";
import { awaitReadable } from "../projections/read-your-writes.ts";
import { createSessionReads } from "../projections/session-reads.ts";
import type { CassandraClient } from "../store/cassandra.ts";
import type { Infra } from "./infra.ts";

/** How long a role's start waits to catch up with the journal before it reports itself up anyway. */
const CATCH_UP_TIMEOUT_MS = 120_000;
const BURNER_FEED_GROUP = "indexer.burners";
/** Sessions whose newest state a gateway keeps in memory for GET /sessions/:id. */
const CACHED_SESSIONS = 50_000;

export const ROLES = ["gateway", "actors", "projector", "indexer", "executor", "webhooks"] as const;
export type Role = (typeof ROLES)[number];

export interface RoleContext {
  /** The configuration with the chains resolved from the environment or the local stack. */
  config: Config;
  infra: Infra;
  kafka: KafkaClient;
  cassandra: CassandraClient;
  log: Logger;
  signal: AbortSignal;
}

export interface RunningRole {
  role: Role;
  /** One line for the operator: what runs and where. */
  summary: string;
  stop(): Promise<void>;
}

export async function startRole(role: Role, ctx: RoleContext): Promise<RunningRole> {
  const log = ctx.log.child({ role });
  switch (role) {
    case "actors": {
      const host = createActorHost({
        kafka: ctx.kafka,
        snapshots: createSnapshotStore(ctx.cassandra),
        log,
        snapshotEvery: ctx.config.SNAPSHOT_EVERY_EVENTS,
      });
      await host.start();
      const restored = await host.restored(120_000);
      gaugeFrom(
        "settlement_actor_partitions_owned",
        "Session partitions this process owns and has restored",
        [],
        () => [{ labels: {}, value: host.owned().length }],
      );
      return {
        role,
        summary: `session actors in group "actors" over ${TOPIC.sessionCommands} + ${TOPIC.chainTransfers}: ${
          restored ? `partitions ${host.owned().join(",")} restored` : "still restoring"
        }`,
        stop: host.stop,
      };
    }
    case "projector": {
      const projector = createProjector({
        kafka: ctx.kafka,
        readModel: createSessionReadModel(ctx.cassandra),
        log,
      });
      await projector.start();
      // Up means caught up: reads served right after start see everything journaled before it.
      const caughtUp = await waitForGroupCaughtUp(ctx.kafka, {
        groupId: PROJECTOR_GROUP,
        topic: TOPIC.sessionEvents,
        timeoutMs: CATCH_UP_TIMEOUT_MS,
      });
      return {
        role,
        summary: `${TOPIC.sessionEvents} -> Cassandra sessions + ${TOPIC.sessionState}${caughtUp ? " (caught up)" : " (still catching up)"}`,
        stop: projector.stop,
      };
    }
    case "gateway": {
      const bus = createGatewayBus({ kafka: ctx.kafka, replyTimeoutMs: ctx.config.REPLY_TIMEOUT_MS, log });
      await bus.start();
      const readModel = createSessionReadModel(ctx.cassandra);
      const app = await createGateway({
        config: ctx.config,
        // A 2xx means every gateway can read what it answered (src/projections/read-your-writes.ts).
        commands: awaitReadable(bus.commands, {
          live: bus.live,
          readModel,
          timeoutMs: ctx.config.REPLY_TIMEOUT_MS,
        }),
        live: bus.live,
        sessions: createSessionReads({
          readModel,
          lastReplied: bus.lastReplied,
          cache: { live: bus.live, ttlMs: ctx.config.SESSION_CACHE_TTL_MS, maxSessions: CACHED_SESSIONS },
        }),
        health: createHealth({
          cassandra: ctx.cassandra,
          chains: ctx.infra.chains,
          staleSeconds: ctx.config.INDEXER_STALE_SECONDS,
        }),
        logger: log,
        metrics: registry,
      });
      const address = await app.listen({ host: ctx.config.HOST, port: ctx.config.PORT });
      return {
        role,
        summary: `listening on ${ctx.config.PUBLIC_URL ?? address} (docs at /docs, OpenAPI at /openapi.json)`,
        async stop() {
          await app.close();
          await bus.stop();
        },
      };
    }
    case "indexer":
      return startIndexers(ctx, log);
    case "executor":
    case "webhooks":
      // Sweeps and webhook delivery arrive with the settlement and merchant work; the roles exist so
      // deployments can already name them, and they say plainly that they do nothing yet.
      return { role, summary: "not built yet: this role starts idle", stop: async () => {} };
    default: {
      const never: never = role;
      throw new Error(`unknown role ${String(never)}`);
    }
  }
}

/** One indexer per configured chain, fed with burners from SessionCreated events. */
async function startIndexers(ctx: RoleContext, log: Logger): Promise<RunningRole> {
  const producer = createPlainProducer(ctx.kafka);
  await producer.connect();
  const abort = new AbortController();
  const stopAll = () => abort.abort();
  ctx.signal.addEventListener("abort", stopAll, { once: true });
  const indexers = ctx.infra.chains.map((chain) =>
    createEvmIndexer({
      chain,
      // JSON-RPC batching: the block scan issues many small calls per step (see docs/INDEXER.md figures).
      client: createPublicClient({ transport: http(chain.rpcUrl, { batch: true }) }),
      cassandra: ctx.cassandra,
      publish: (records) =>
        producer.send(
          TOPIC.chainTransfers,
          records.map((r) => ({ key: r.sessionId, value: transferObservedCodec.encode(r) })),
        ),
      log: (msg, fields) => log.info({ chainId: chain.chainId, ...fields }, msg),
      signal: abort.signal,
      pollMs: ctx.config.INDEXER_POLL_MS,
    }),
  );
  gaugeFrom(
    "settlement_indexer_last_block",
    "The newest block each chain's indexer fully processed",
    ["chain_id"],
    () =>
      indexers.map((ix) => ({
        labels: { chain_id: ix.status().chainId },
        value: Number(ix.status().lastBlock ?? -1n),
      })),
  );
  const runs = indexers.map((ix, i) =>
    ix.run().catch((err) => log.error({ err, chainId: ctx.infra.chains[i]?.chainId }, "indexer stopped")),
  );
  // Every chain watches every burner: the payer may deposit on any supported chain.
  const burners = createBatchConsumer(ctx.kafka, {
    groupId: BURNER_FEED_GROUP,
    topics: [TOPIC.sessionEvents],
    fromBeginning: true,
    onCrash: (err) => log.error({ err }, "burner feed crashed"),
    onBatch: async (_topic, _partition, records) => {
      const created: Array<{ burner: string; sessionId: string }> = [];
      for (const r of records) {
        if (!r.value) continue;
        const event = sessionEventCodec.decode(r.value);
        if (event.type === "SessionCreated")
          created.push({ burner: event.data.burner, sessionId: event.metadata.sessionId });
      }
      if (created.length === 0) return;
      // One watchlist call per batch: its backfill scans the recent blocks once for all of them.
      for (const ix of indexers) {
        for (const { outcome, entry } of await ix.watchlist.addMany(created)) {
          if (outcome === "conflict")
            log.warn(
              { burner: entry.burner, owner: entry.sessionId },
              "burner already watched for another session",
            );
        }
      }
    },
  });
  await burners.start();
  // Watching every burner journaled before start, so a deposit to a session created then is seen.
  const caughtUp = await waitForGroupCaughtUp(ctx.kafka, {
    groupId: BURNER_FEED_GROUP,
    topic: TOPIC.sessionEvents,
    timeoutMs: CATCH_UP_TIMEOUT_MS,
  });
  return {
    role: "indexer",
    summary: `${ctx.infra.chains
      .map((c) => `${c.name} (chain ${c.chainId}, ${c.confirmations} confirmations)`)
      .join(", ")}${caughtUp ? "" : " (burner feed still catching up)"}`,
    async stop() {
      abort.abort();
      await burners.stop();
      await Promise.all(runs);
      await producer.disconnect();
    },
  };
}
