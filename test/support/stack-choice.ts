/**
 * Where the integration and end-to-end tiers get Kafka and Cassandra (test/support/with-stack.ts):
 * a server the environment names is used as it is; otherwise testcontainers starts it when a
 * Docker engine answers, and the local stack (deploy/local/, from Maven Central on the machine's
 * JDK) does when none does. Pure, so a unit test covers every case. The chains always come from the
 * local stack: no container image carries the contracts it deploys.
 */

export type ServerSource = "environment" | "testcontainers" | "local stack";

export interface StackChoice {
  kafka: ServerSource;
  cassandra: ServerSource;
}

export function chooseStack(input: {
  engineAnswers: boolean;
  env: { KAFKA_BROKERS?: string | undefined; CASSANDRA_CONTACT_POINTS?: string | undefined };
}): StackChoice {
  const pick = (named: string | undefined): ServerSource =>
    named !== undefined && named.trim() !== ""
      ? "environment"
      : input.engineAnswers
        ? "testcontainers"
        : "local stack";
  return { kafka: pick(input.env.KAFKA_BROKERS), cassandra: pick(input.env.CASSANDRA_CONTACT_POINTS) };
}

/** The first line with-stack prints: which servers this run uses, and why. */
export function describeChoice(choice: StackChoice, engine: string): string {
  const servers =
    choice.kafka === choice.cassandra
      ? `Kafka and Cassandra: ${choice.kafka}`
      : `Kafka: ${choice.kafka}, Cassandra: ${choice.cassandra}`;
  return `[stack] ${servers}; chains: local stack (${engine})`;
}
