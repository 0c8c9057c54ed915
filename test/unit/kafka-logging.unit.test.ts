import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { createKafka, kafkajs } from "../../src/kafka/client.ts";

const require = createRequire(import.meta.url);
const { createErrorFromCode } = require("kafkajs/src/protocol/error") as {
  createErrorFromCode: (code: number) => Error;
};

function logged() {
  const lines: Array<{ level: string; message: string }> = [];
  const kafka = createKafka({
    brokers: ["127.0.0.1:1"], // never connected: only the logger is used
    clientId: "unit",
    log: (level, message) => lines.push({ level, message }),
  });
  return { logger: kafkajs(kafka).logger(), lines };
}

describe("kafkajs log lines", () => {
  it("a CONCURRENT_TRANSACTIONS response, which is retried, is logged at debug, not error", () => {
    const { logger, lines } = logged();
    const error = createErrorFromCode(51).message;
    logger.error("Response AddOffsetsToTxn(key: 25, version: 1)", { error, correlationId: 7 });
    expect(lines).toEqual([{ level: "debug", message: expect.stringContaining("AddOffsetsToTxn") }]);
  });

  it("the producer's own line for a CONCURRENT_TRANSACTIONS send it retries is logged at debug", () => {
    const { logger, lines } = logged();
    const error = createErrorFromCode(51).message;
    logger
      .namespace("Producer")
      .error(`Failed to send messages: ${error}`, { retryCount: 0, retryTime: 100 });
    logger.namespace("Producer").error(error, { retryCount: 1, retryTime: 200 });
    expect(lines.map((l) => l.level)).toEqual(["debug", "debug"]);
  });

  it("any other error response stays an error", () => {
    const { logger, lines } = logged();
    const error = createErrorFromCode(47).message; // INVALID_PRODUCER_EPOCH
    logger.error("Response EndTxn(key: 26, version: 1)", { error, correlationId: 8 });
    expect(lines).toEqual([{ level: "error", message: expect.stringContaining("EndTxn") }]);
  });
});

describe("a clean start logs no kafkajs error", () => {
  it.each([14, 15, 16])("coordinator response %i, which kafkajs retries, is logged at debug", (code) => {
    const { logger, lines } = logged();
    logger.error("Response GroupCoordinator(key: 10, version: 2)", {
      error: createErrorFromCode(code).message,
    });
    expect(lines).toEqual([{ level: "debug", message: expect.stringContaining("GroupCoordinator") }]);
  });

  it("a consumer crash on a loading coordinator, and its restart, are warnings", () => {
    const lines: Array<{ level: string; message: string }> = [];
    const kafka = createKafka({
      brokers: ["127.0.0.1:1"],
      clientId: "unit",
      log: (level, message) => lines.push({ level, message }),
    });
    const consumer = kafkajs(kafka).logger().namespace("Consumer");
    const loading = createErrorFromCode(14);
    consumer.error(`Crash: ${loading.name}: ${loading.message}`, { groupId: "g" });
    consumer.error("Restarting the consumer in 100ms", { groupId: "g" });
    consumer.error(`Crash: ${createErrorFromCode(47).name}: ${createErrorFromCode(47).message}`, {
      groupId: "g",
    });
    expect(lines.map((l) => l.level)).toEqual(["warn", "warn", "error"]);
  });
});
