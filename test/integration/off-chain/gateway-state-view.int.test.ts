// A gateway's view of session.state on the real broker (src/kafka/gateway-bus.ts): it holds the
// newest state of a session that changed before the gateway started, and a rejoin of its private
// group (a broker restart, a rebalance) skips nothing. Either gap let a command route read an older
// state than the one another gateway had shown the payer: the CI fault proof's payer saw
// `detected` on one gateway and was refused `409 no deposit has been detected` by the other
// (docs/RELIABILITY.md, "A commit refused after detected").
import { randomUUID } from "node:crypto";
import { afterEach, expect, it } from "vitest";
import { groupTiming, kafkajs } from "../../../src/kafka/client.ts";
import { createGatewayBus, type GatewayBus } from "../../../src/kafka/gateway-bus.ts";
import { partitionOfKey } from "../../../src/kafka/key-history.ts";
import { createLogger } from "../../../src/logging.ts";
import { TOPIC } from "../../../topics/catalogue.ts";
import { waitFor } from "../../support/actor-host.ts";
import { codecs } from "../../support/codecs.ts";
import { drivenService } from "../../support/driven-service.ts";
import { generator } from "../../support/generate.ts";

const fx = drivenService();
const buses: GatewayBus[] = [];
afterEach(async () => {
  for (const bus of buses.splice(0)) await bus.stop();
});

let seed = 1;
/** Commits a state of session `id` at `version` on session.state, as an actor's transaction would. */
async function publishState(id: string, version: number) {
  const made = generator(seed++).sessionState();
  const value = codecs.sessionState.encode({ version, session: { ...made.session, id } });
  await fx.producer.send(TOPIC.sessionState, [{ key: id, value }]);
}

async function startBus(gatewayId = randomUUID()) {
  const bus = createGatewayBus({
    codecs,
    kafka: fx.service.kafka,
    gatewayId,
    replyTimeoutMs: 5000,
    recentStates: 50_000,
    log: createLogger("warn", "test"),
  });
  await bus.start();
  buses.push(bus);
  return bus;
}

/** A new session id whose records go to `partition` of session.state. */
function idIn(partition: number) {
  for (;;) {
    const id = randomUUID();
    if (partitionOfKey(id, fx.service.config.SESSION_PARTITIONS) === partition) return id;
  }
}

it("a gateway that starts after a session changed holds the session's newest state", async () => {
  const id = randomUUID();
  await publishState(id, 3);
  await publishState(id, 7);
  const bus = await startBus();
  // No wait: the gateway answers reads once it is started, and must know the state by then.
  expect(bus.committedStates.held(id)?.version).toBe(7);
}, 60_000);

it("a rejoin of the gateway's group skips no state committed meanwhile", async () => {
  const gatewayId = randomUUID();
  const bus = await startBus(gatewayId);
  // A second member in the gateway's private group takes some partitions away for a while: the
  // gateway's member rejoins twice, as it does after a broker restart.
  const other = kafkajs(fx.service.kafka).consumer({
    groupId: `gateway.${gatewayId}`,
    ...groupTiming(fx.service.kafka),
  });
  let taken: number[] = [];
  other.on(other.events.GROUP_JOIN, ({ payload }) => {
    taken = payload.memberAssignment[TOPIC.sessionState] ?? [];
  });
  await other.connect();
  await other.subscribe({ topics: [TOPIC.gatewayReplies, TOPIC.sessionState], fromBeginning: false });
  await other.run({ eachBatch: async () => {} });
  const partition = await waitFor(
    "the second member to take a session.state partition",
    () => taken[0],
    30_000,
  );
  // Committed while the partition is away from the gateway's member; the gateway must still get it.
  const id = idIn(partition);
  await publishState(id, 5);
  await other.disconnect();
  // The partition is back with the gateway's member once it reads a state committed after its
  // rejoin (one probe a second: a probe committed before the rejoin could be skipped too).
  const probes: string[] = [];
  let lastProbe = 0;
  await waitFor(
    "the gateway to read the partition again",
    async () => {
      if (probes.some((p) => bus.committedStates.held(p) !== null)) return true;
      if (Date.now() - lastProbe < 1000) return undefined;
      lastProbe = Date.now();
      const probe = idIn(partition);
      probes.push(probe);
      await publishState(probe, 1);
      return undefined;
    },
    30_000,
  );
  expect(bus.committedStates.held(id)?.version).toBe(5);
}, 90_000);
