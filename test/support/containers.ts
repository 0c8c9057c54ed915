import { CassandraContainer } from "@testcontainers/cassandra";
import { KafkaContainer } from "@testcontainers/kafka";
import { getContainerRuntimeClient, type StartedTestContainer } from "testcontainers";
import type { StackChoice } from "./stack-choice.ts";

/**
 * Kafka and Cassandra in containers through testcontainers' modules, for with-stack on a machine
 * whose Docker engine answers. The images carry the releases the local stack runs where one exists:
 * Cassandra 5.0.9; for Kafka, the module speaks Confluent's image, whose 8.0 line is Kafka 4.0
 * (KRaft; kafkajs 2.2.4 works against 4.x, deploy/local/README.md).
 */
export const KAFKA_IMAGE = "confluentinc/cp-kafka:8.0.0";
export const CASSANDRA_IMAGE = "cassandra:5.0.9";

/** Whether a container engine answers, and in words which one or why not. */
export async function dockerEngine(): Promise<{ answers: boolean; detail: string }> {
  try {
    const client = await getContainerRuntimeClient();
    return { answers: true, detail: `a Docker engine answered: ${client.info.containerRuntime.host}` };
  } catch (err) {
    const why = err instanceof Error ? err.message.split("\n")[0] : String(err);
    return { answers: false, detail: `no Docker engine answered: ${why}` };
  }
}

export interface Containers {
  /** The servers' addresses, as the environment variables the service and the tests read. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** Starts the servers `choice` gives to testcontainers (none, one or both), side by side. */
export async function startContainers(choice: StackChoice): Promise<Containers> {
  const [kafka, cassandra] = await Promise.all([
    choice.kafka === "testcontainers"
      ? new KafkaContainer(KAFKA_IMAGE)
          // One broker: the transaction log (exactly once) must fit on it.
          // and the service's 3 s group sessions must be allowed (Kafka's floor is 6 s by default).
          .withEnvironment({
            KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: "1",
            KAFKA_GROUP_MIN_SESSION_TIMEOUT_MS: "1000",
          })
          .start()
      : undefined,
    choice.cassandra === "testcontainers" ? new CassandraContainer(CASSANDRA_IMAGE).start() : undefined,
  ]);
  const env: Record<string, string> = {};
  // The module's PLAINTEXT listener for clients outside the container network.
  if (kafka) env.KAFKA_BROKERS = `${kafka.getHost()}:${kafka.getMappedPort(9093)}`;
  if (cassandra) {
    env.CASSANDRA_CONTACT_POINTS = cassandra.getContactPoint();
    env.CASSANDRA_LOCAL_DC = cassandra.getDatacenter();
  }
  const started: StartedTestContainer[] = [kafka, cassandra].filter((c) => c !== undefined);
  return { env, stop: async () => void (await Promise.all(started.map((c) => c.stop()))) };
}
