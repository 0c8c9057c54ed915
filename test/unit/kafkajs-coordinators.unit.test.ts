// The coordinator cache of patches/kafkajs+2.2.4.patch, in kafkajs's transaction manager (eosManager)
// against a scripted cluster: which coordinator requests a producer sends, when it looks a coordinator
// up again, and what it retries. The real broker's side is coordinator-cache.int.test.ts.
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";

const require = createRequire(import.meta.url);
const createEosManager = require("kafkajs/src/producer/eosManager") as (args: object) => EosManager;
const { createErrorFromCode } = require("kafkajs/src/protocol/error") as {
  createErrorFromCode: (code: number) => Error;
};
const { KafkaJSConnectionError } = require("kafkajs/src/errors") as {
  KafkaJSConnectionError: new (message: string) => Error;
};

interface EosManager {
  initProducerId(): Promise<void>;
  beginTransaction(): void;
  addPartitionsToTransaction(
    topics: Array<{ topic: string; partitions: Array<{ partition: number }> }>,
  ): Promise<void>;
  sendOffsets(args: { consumerGroupId: string; topics: unknown[] }): Promise<void>;
  commit(): Promise<void>;
}

const NOT_COORDINATOR = 16;
const COORDINATOR_NOT_AVAILABLE = 15;
const COORDINATOR_LOAD_IN_PROGRESS = 14;

/** A cluster of one broker whose answers a test scripts: `fail.<request>` lists errors to throw first. */
function scriptedCluster() {
  const sent: string[] = [];
  const fail: Record<string, Error[]> = {};
  const request =
    (name: string, answer: object = {}) =>
    async () => {
      sent.push(name);
      const error = fail[name]?.shift();
      if (error) throw error;
      return answer;
    };
  const broker = {
    nodeId: 1,
    initProducerId: request("InitProducerId", { producerId: 7, producerEpoch: 0 }),
    addPartitionsToTxn: request("AddPartitionsToTxn"),
    addOffsetsToTxn: request("AddOffsetsToTxn"),
    txnOffsetCommit: request("TxnOffsetCommit"),
    endTxn: request("EndTxn"),
  };
  const cluster = {
    retry: { retries: 5, initialRetryTime: 1, maxRetryTime: 5 },
    refreshMetadataIfNecessary: async () => {},
    findGroupCoordinator: async ({ coordinatorType }: { coordinatorType: number }) => {
      sent.push(coordinatorType === 1 ? "FindCoordinator(transaction)" : "FindCoordinator(group)");
      return broker;
    },
    findBroker: async () => broker,
  };
  const quiet = { debug() {}, info() {}, warn() {}, error() {} };
  const eos = createEosManager({ logger: quiet, cluster, transactional: true, transactionalId: "t" });
  return { eos, sent, fail };
}

const offsets = (partitions: number[]) => [
  { topic: "in", partitions: partitions.map((partition) => ({ partition, offset: "1" })) },
];

async function transaction(eos: EosManager, opts: { sendOffsetsCalls?: number } = {}) {
  eos.beginTransaction();
  await eos.addPartitionsToTransaction([{ topic: "out", partitions: [{ partition: 0 }, { partition: 1 }] }]);
  for (let i = 0; i < (opts.sendOffsetsCalls ?? 1); i++)
    await eos.sendOffsets({ consumerGroupId: "g", topics: offsets([0, 1, 2]) });
  await eos.commit();
}

/** A producer of the scripted cluster after one transaction, with what it sent forgotten. */
async function afterOneTransaction() {
  const cluster = scriptedCluster();
  await cluster.eos.initProducerId();
  await transaction(cluster.eos);
  cluster.sent.length = 0;
  return cluster;
}

/** A transaction whose AddOffsetsToTxn failed once on the cached coordinator, which was then forgotten. */
const OFFSETS_SENT_AGAIN_AFTER_A_LOOKUP = [
  "AddPartitionsToTxn",
  "AddOffsetsToTxn",
  "FindCoordinator(transaction)",
  "AddOffsetsToTxn",
  "TxnOffsetCommit",
  "EndTxn",
];

/** A transaction whose first AddOffsetsToTxn is refused (as scripted) and sent again by the caller. */
async function offsetsRefusedOnce(eos: EosManager, refusal?: string) {
  eos.beginTransaction();
  await eos.addPartitionsToTransaction([{ topic: "out", partitions: [{ partition: 0 }] }]);
  const first = eos.sendOffsets({ consumerGroupId: "g", topics: offsets([0]) });
  await (refusal === undefined ? expect(first).rejects.toThrow() : expect(first).rejects.toThrow(refusal));
  await eos.sendOffsets({ consumerGroupId: "g", topics: offsets([0]) });
}

describe("kafkajs transactions with cached coordinators", () => {
  it("looks each coordinator up once for a producer's life, not before every request", async () => {
    const { eos, sent } = scriptedCluster();
    await eos.initProducerId();
    for (let i = 0; i < 3; i++) await transaction(eos);
    expect(sent.filter((r) => r.startsWith("FindCoordinator"))).toEqual([
      "FindCoordinator(transaction)",
      "FindCoordinator(group)",
    ]);
    expect(sent.filter((r) => r === "EndTxn")).toHaveLength(3);
  });

  it("sends AddOffsetsToTxn once per group and transaction, and one TxnOffsetCommit per call for all its partitions", async () => {
    const { eos, sent } = scriptedCluster();
    await eos.initProducerId();
    await transaction(eos);
    sent.length = 0;
    await transaction(eos, { sendOffsetsCalls: 2 });
    expect(sent).toEqual([
      "AddPartitionsToTxn",
      "AddOffsetsToTxn",
      "TxnOffsetCommit",
      "TxnOffsetCommit",
      "EndTxn",
    ]);
    sent.length = 0;
    await transaction(eos);
    expect(sent).toEqual(["AddPartitionsToTxn", "AddOffsetsToTxn", "TxnOffsetCommit", "EndTxn"]);
  });

  it.each([
    ["NOT_COORDINATOR", NOT_COORDINATOR],
    ["COORDINATOR_NOT_AVAILABLE", COORDINATOR_NOT_AVAILABLE],
    ["COORDINATOR_LOAD_IN_PROGRESS", COORDINATOR_LOAD_IN_PROGRESS],
  ])(
    "after %s, fails the request, sends it once, and looks the coordinator up for the next",
    async (_, code) => {
      const { eos, sent, fail } = await afterOneTransaction();
      fail.AddOffsetsToTxn = [createErrorFromCode(code)];
      await offsetsRefusedOnce(eos);
      fail.EndTxn = [createErrorFromCode(code)];
      // A commit refused so is not sent again: the transactor throws the producer away and re-reads
      await expect(eos.commit()).rejects.toThrow();
      expect(sent).toEqual(OFFSETS_SENT_AGAIN_AFTER_A_LOOKUP);
    },
  );

  it("after NOT_COORDINATOR on TxnOffsetCommit, looks the group coordinator up again and sends it again", async () => {
    const { eos, sent, fail } = await afterOneTransaction();
    fail.TxnOffsetCommit = [createErrorFromCode(NOT_COORDINATOR)];
    await transaction(eos);
    expect(sent).toEqual([
      "AddPartitionsToTxn",
      "AddOffsetsToTxn",
      "TxnOffsetCommit",
      "FindCoordinator(group)",
      "TxnOffsetCommit",
      "EndTxn",
    ]);
  });

  it("after a broken connection, fails the request (its outcome is unknown) and looks the coordinator up for the next", async () => {
    const { eos, sent, fail } = await afterOneTransaction();
    fail.AddOffsetsToTxn = [new KafkaJSConnectionError("Connection closed")];
    await offsetsRefusedOnce(eos, "Connection closed");
    await eos.commit();
    expect(sent).toEqual(OFFSETS_SENT_AGAIN_AFTER_A_LOOKUP);
  });

  it("keeps the cached coordinator after an error that says nothing about it", async () => {
    const { eos, sent, fail } = await afterOneTransaction();
    fail.AddOffsetsToTxn = [createErrorFromCode(51)]; // CONCURRENT_TRANSACTIONS: the caller retries
    await offsetsRefusedOnce(eos);
    await eos.commit();
    expect(sent.some((r) => r.startsWith("FindCoordinator"))).toBe(false);
  });
});
