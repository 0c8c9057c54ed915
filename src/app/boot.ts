import { topicCatalogue } from "../../topics/catalogue.ts";
import { createChainAdapters } from "../chains/adapters.ts";
import type { Config } from "../config.ts";
import { createKafka } from "../kafka/client.ts";
import { singleObjectCodecs } from "../kafka/codecs.ts";
import { ensureTopics } from "../kafka/topics.ts";
import type { Logger } from "../logging.ts";
import { gaugeFrom, registry } from "../ops/metrics.ts";
import { connectCassandra } from "../store/cassandra.ts";
import { type EnsureStack, resolveInfra } from "./infra.ts";
import type { Shared } from "./shared.ts";

/**
 * Everything a process needs before its roles start: where the servers are (starting the local
 * stack with `ensureStack` when given), the topics, the migrated keyspace, the chain adapters. Topics
 * and migrations are idempotent, so every process may run them.
 */
export async function boot(
  config: Config,
  log: Logger,
  opts: { ensureStack?: EnsureStack | undefined } = {},
): Promise<Shared & { abort: AbortController }> {
  const infra = await resolveInfra(config, { ensureStack: opts.ensureStack, log: (l) => log.debug(l) });
  const kafka = createKafka({
    brokers: infra.brokers,
    clientId: config.KAFKA_CLIENT_ID,
    groupSessionTimeoutMs: config.KAFKA_SESSION_TIMEOUT_MS,
    log: (level, message, fields) => log[level]({ ...fields, component: "kafkajs" }, message),
  });
  const topics = topicCatalogue({ sessionPartitions: config.SESSION_PARTITIONS });
  await ensureTopics(kafka, topics);
  const codecs = singleObjectCodecs();
  const cassandra = await connectCassandra(infra.cassandra, { migrate: true });
  const abort = new AbortController();
  return {
    // The chains as resolved: from the environment, else the local stack file.
    config: { ...config, chains: infra.chains },
    infra,
    log,
    metrics: { registry, gaugeFrom },
    codecs,
    kafka,
    cassandra,
    chains: createChainAdapters(infra.chains),
    signal: abort.signal,
    abort,
  };
}
