import { topicCatalogue } from "../../topics/catalogue.ts";
import type { Config } from "../config.ts";
import { createKafka } from "../kafka/client.ts";
import { ensureTopics } from "../kafka/topics.ts";
import type { Logger } from "../logging.ts";
import { connectCassandra } from "../store/cassandra.ts";
import { resolveInfra } from "./infra.ts";
import type { RoleContext } from "./roles.ts";

/**
 * Everything a process needs before its roles start: where the servers are (starting the local
 * stack when `ensure`), the topics, the migrated keyspace. Topics and migrations are idempotent, so
 * every process may run them.
 */
export async function boot(
  config: Config,
  log: Logger,
  opts: { ensure: boolean },
): Promise<RoleContext & { abort: AbortController }> {
  const infra = await resolveInfra(config, { ensure: opts.ensure, log: (l) => log.debug(l) });
  const kafka = createKafka({
    brokers: infra.brokers,
    clientId: config.KAFKA_CLIENT_ID,
    log: (level, message, fields) => log[level]({ ...fields, component: "kafkajs" }, message),
  });
  await ensureTopics(kafka, topicCatalogue({ sessionPartitions: config.SESSION_PARTITIONS }));
  const cassandra = await connectCassandra(infra.cassandra, { migrate: true });
  const abort = new AbortController();
  return {
    config: { ...config, evmChains: infra.chains },
    infra,
    kafka,
    cassandra,
    log,
    signal: abort.signal,
    abort,
  };
}
