// A Kafka outage never kills a role (issue 16, item 11). The whole service runs as ONE child
// process (`src/cli.ts start`) over a Kafka broker of this file's own (the shared one is never
// touched) and the shared Cassandra; the broker is killed (`kill -9`) under 20 POST /sessions a
// second and started again 15 s later on the same data and port. Every answer is 200 or 503 with
// Retry-After, the same process accepts sessions again by itself, every session answered 200 is
// readable, every role's consumer group is back, and no unhandled rejection happened (the process
// would write a FATAL line and exit 70: src/app/cli.ts). Before the fix the process died of one.
import { afterAll, beforeAll, it } from "vitest";
import { ensureStack } from "../../../deploy/local/stack.ts";
import { expectOutageSurvived, type ServiceProcess, startServiceProcess } from "../../support/outage.ts";
import { startThrowawayServer, type ThrowawayServer } from "../../support/throwaway-servers.ts";

let kafka: ThrowawayServer;
let service: ServiceProcess;

beforeAll(async () => {
  await ensureStack({ root: ".local" });
  kafka = await startThrowawayServer("kafka");
  service = await startServiceProcess({
    KAFKA_BROKERS: kafka.address,
    CASSANDRA_KEYSPACE: `${process.env.CASSANDRA_KEYSPACE ?? "settlement"}_kafka_outage`,
  });
}, 240_000);

afterAll(async () => {
  await service?.child.stop();
  await kafka?.remove();
});

it("survives the broker killed under load, and carries on by itself once it is back", async () => {
  await expectOutageSurvived(kafka, service, kafka.address, "refusals");
}, 180_000);
