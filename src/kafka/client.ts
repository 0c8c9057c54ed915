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
      settings.log?.(level, `kafka ${entry.namespace}: ${message}`, fields);
    },
  };
  return new Kafka(config);
}
