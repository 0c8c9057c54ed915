// A Cassandra outage never kills a role (issue 16, item 11). The whole service runs as ONE child
// process (`src/cli.ts start`) over a Cassandra node and a Kafka broker of this file's own (the
// shared ones are never touched; the broker, so the service's short group sessions are allowed
// whatever the shared broker was started with: deploy/local/kafka.ts); the node is killed (`kill -9`) under 20 POST /sessions a second
// and started again 15 s later on the same data and port. Every answer is 200 or 503 with
// Retry-After (before the fix, 500s); since the write path answers after the actor's commit (issue
// 30) no write is refused at all while the node is down, and the outage shows in the roles that
// use it (the projector's errors); the same process accepts sessions again by itself, every
// session answered 200 is readable, every role's consumer group is still there, and no unhandled
// rejection happened (src/app/cli.ts would write a FATAL line and exit 70).
import { afterAll, beforeAll, it } from "vitest";
import { ensureStack } from "../../../deploy/local/stack.ts";
import { expectOutageSurvived, type ServiceProcess, startServiceProcess } from "../../support/outage.ts";
import { startThrowawayServer, type ThrowawayServer } from "../../support/throwaway-servers.ts";

let cassandra: ThrowawayServer;
let kafka: ThrowawayServer;
let service: ServiceProcess;

beforeAll(async () => {
  await ensureStack({ root: ".local" });
  [cassandra, kafka] = await Promise.all([startThrowawayServer("cassandra"), startThrowawayServer("kafka")]);
  service = await startServiceProcess({
    KAFKA_BROKERS: kafka.address,
    CASSANDRA_CONTACT_POINTS: cassandra.address,
    CASSANDRA_KEYSPACE: "outage",
  });
}, 300_000);

afterAll(async () => {
  await service?.child.stop();
  await Promise.all([cassandra?.remove(), kafka?.remove()]);
});

it("survives the node killed under load, and carries on by itself once it is back", async () => {
  await expectOutageSurvived(cassandra, service, kafka.address, "logged");
}, 180_000);
