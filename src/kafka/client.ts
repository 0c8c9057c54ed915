import { Kafka, type KafkaConfig, logLevel } from "kafkajs";

/**
 * Every import of kafkajs lives in src/kafka/: the client has had no release since 2023, so the rest
 * of the service only sees the small surface exported from here and the client can be swapped.
 */

export interface KafkaSettings {
  brokers: string[];
  clientId: string;
  log?: (level: "error" | "warn" | "info" | "debug", message: string, fields: object) => void;
}

export type KafkaClient = Kafka;

/** kafkajs's message for the broker's CONCURRENT_TRANSACTIONS (51) response. */
const CONCURRENT_TRANSACTIONS_MESSAGE =
  "The producer attempted to update a transaction while another concurrent operation on the same transaction was ongoing";

export function createKafka(settings: KafkaSettings): KafkaClient {
  const config: KafkaConfig = {
    brokers: settings.brokers,
    clientId: settings.clientId,
    connectionTimeout: 3000,
    requestTimeout: 30_000,
    retry: { initialRetryTime: 100, retries: 8 },
    logLevel: logLevel.WARN,
    logCreator: () => (entry) => {
      const level =
        entry.level === logLevel.ERROR ? "error" : entry.level === logLevel.WARN ? "warn" : "info";
      const { message, ...fields } = entry.log;
      // Advisory printed for every idempotent producer with bounded retries. Ours are bounded on
      // purpose (a send must fail rather than hang); duplicates are prevented by transactions and
      // the session core's idempotence, not by retrying forever.
      if (message.startsWith("Limiting retries for the idempotent producer")) return;
      // The broker answers CONCURRENT_TRANSACTIONS while it finishes the previous transaction of the
      // same id, and expects a retry; kafkajs retries it, but logs every such response as an error.
      // If the retries run out, the transaction fails and its caller logs that.
      const retried = fields.error === CONCURRENT_TRANSACTIONS_MESSAGE;
      settings.log?.(retried ? "debug" : level, `kafka ${entry.namespace}: ${message}`, fields);
    },
  };
  return new Kafka(config);
}
