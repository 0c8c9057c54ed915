import { TOPIC } from "../../../topics/catalogue.ts";
import { createBurnerFeed } from "../../chains/burner-feed.ts";
import { createPlainProducer } from "../../kafka/at-least-once.ts";
import { indexerNotReady } from "../../ops/readiness.ts";
import { startEntityIndexers } from "../entity-modules/start.ts";
import { CATCH_UP_TIMEOUT_MS, type RoleModule } from "../shared.ts";

/** One indexer per configured chain, through its adapter, with the burner feed filling their watchlists. */
export const indexerRole: RoleModule = {
  name: "indexer",
  async start(shared, log) {
    const producer = createPlainProducer(shared.kafka);
    await producer.connect();
    const abort = new AbortController();
    const stopAll = () => abort.abort();
    shared.signal.addEventListener("abort", stopAll, { once: true });
    const indexers = shared.chains.map((adapter) =>
      adapter.createIndexer({
        cassandra: shared.cassandra,
        publish: (records) =>
          producer.send(
            TOPIC.chainTransfers,
            records.map((r) => ({ key: r.sessionId, value: shared.codecs.transferObserved.encode(r) })),
          ),
        log: (msg, fields) => log.info({ chainId: adapter.chain.chainId, ...fields }, msg),
        signal: abort.signal,
        pollMs: shared.config.INDEXER_POLL_MS,
      }),
    );
    shared.metrics.gaugeFrom(
      "settlement_indexer_last_block",
      "The newest block each chain's indexer fully processed",
      ["chain_id"],
      () =>
        indexers.map((ix) => ({
          labels: { chain_id: ix.status().chainId },
          value: Number(ix.status().lastBlock ?? -1n),
        })),
    );
    // Freshness as a timestamp, so an alert compares it with time() (INDEXER_STALE_SECONDS is /health's).
    shared.metrics.gaugeFrom(
      "settlement_indexer_last_progress_timestamp_seconds",
      "When each chain's indexer last processed a block (or confirmed it is at the head), Unix seconds",
      ["chain_id"],
      () =>
        indexers.flatMap((ix) => {
          const { chainId, lastBlockAt } = ix.status();
          return lastBlockAt === null ? [] : [{ labels: { chain_id: chainId }, value: lastBlockAt / 1000 }];
        }),
    );
    const runs = indexers.map((ix) =>
      ix.run().catch((err) => log.error({ err, chainId: ix.status().chainId }, "indexer stopped")),
    );
    const feed = createBurnerFeed({ kafka: shared.kafka, codecs: shared.codecs, indexers, log });
    // Watching every burner journaled before start, so a deposit to a session created then is seen.
    let caughtUp = await feed.start(CATCH_UP_TIMEOUT_MS);
    // Not caught up within the start's wait: not ready until it is (src/ops/readiness.ts).
    void (async () => {
      while (!caughtUp && !abort.signal.aborted)
        caughtUp = await feed.caughtUp(CATCH_UP_TIMEOUT_MS, abort.signal).catch(async (err: unknown) => {
          log.warn({ err }, "burner feed catch-up check failed; checking again in a second");
          await new Promise((r) => setTimeout(r, 1000));
          return false;
        });
    })();
    // The entities' watchers (merchant mode: on-chain subscription cancels mirrored to their actors).
    const watchers = await startEntityIndexers(shared, log);
    return {
      role: "indexer",
      summary: `${shared.chains
        .map((a) => a.summary)
        .join(
          ", ",
        )}${caughtUp ? "" : " (burner feed still catching up)"}${watchers.summary ? `; ${watchers.summary}` : ""}`,
      notReady: () =>
        indexerNotReady(
          caughtUp,
          indexers.map((ix) => ix.status()),
          Date.now(),
          shared.config.INDEXER_STALE_SECONDS,
        ),
      async stop() {
        await watchers.stop();
        abort.abort();
        await feed.stop();
        await Promise.all(runs);
        await producer.disconnect();
      },
    };
  },
};
