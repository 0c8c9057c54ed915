import { describe, expect, it } from "vitest";
import { chooseStack, describeChoice } from "../support/stack-choice.ts";

describe("with-stack's choice of Kafka and Cassandra", () => {
  it("takes the local stack when no Docker engine answers and the environment names no server", () => {
    expect(chooseStack({ engineAnswers: false, env: {} })).toEqual({
      kafka: "local stack",
      cassandra: "local stack",
    });
  });

  it("takes testcontainers for both when an engine answers", () => {
    expect(chooseStack({ engineAnswers: true, env: {} })).toEqual({
      kafka: "testcontainers",
      cassandra: "testcontainers",
    });
  });

  it("uses a server the environment names, whether or not an engine answers", () => {
    const env = { KAFKA_BROKERS: "10.0.0.1:9092", CASSANDRA_CONTACT_POINTS: "10.0.0.2:9042" };
    for (const engineAnswers of [true, false])
      expect(chooseStack({ engineAnswers, env })).toEqual({ kafka: "environment", cassandra: "environment" });
  });

  it("decides each server on its own: one named, the other from the engine or the local stack", () => {
    expect(chooseStack({ engineAnswers: true, env: { KAFKA_BROKERS: "k:9092" } })).toEqual({
      kafka: "environment",
      cassandra: "testcontainers",
    });
    expect(chooseStack({ engineAnswers: false, env: { CASSANDRA_CONTACT_POINTS: "c:9042" } })).toEqual({
      kafka: "local stack",
      cassandra: "environment",
    });
  });

  it("counts a blank variable as unset, as the stack's own start does", () => {
    expect(
      chooseStack({ engineAnswers: false, env: { KAFKA_BROKERS: " ", CASSANDRA_CONTACT_POINTS: "" } }),
    ).toEqual({
      kafka: "local stack",
      cassandra: "local stack",
    });
  });

  it("says in one line where each server comes from and why", () => {
    expect(
      describeChoice({ kafka: "local stack", cassandra: "local stack" }, "no Docker engine answered: x"),
    ).toBe("[stack] Kafka and Cassandra: local stack; chains: local stack (no Docker engine answered: x)");
    expect(
      describeChoice({ kafka: "environment", cassandra: "testcontainers" }, "a Docker engine answered"),
    ).toBe(
      "[stack] Kafka: environment, Cassandra: testcontainers; chains: local stack (a Docker engine answered)",
    );
  });
});
