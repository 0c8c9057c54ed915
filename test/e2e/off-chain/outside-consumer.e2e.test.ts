import { readFileSync } from "node:fs";
import avsc from "avsc";
import { Kafka } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalChain } from "../../../deploy/local/chains.ts";
import { json } from "../../support/http.ts";
import { newBurner, sessionBody } from "../../support/payer.ts";
import { startTestService, type TestService } from "../../support/service.ts";

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ roles: ["actors", "projector", "gateway"] });
});
afterAll(async () => {
  await service?.stop();
});

/**
 * An analytics consumer outside the service: plain kafkajs, the .avsc files and avsc. It imports
 * nothing from src/, so it proves the topics can be read with the published contract alone.
 */
describe("a consumer with only schemas/ and an Avro library", () => {
  it("decodes the SessionCreated the service appended to session.events for a new session", async () => {
    const kafka = new Kafka({ brokers: service.stack.kafka.brokers, clientId: "outside" });
    const admin = kafka.admin();
    await admin.connect();
    const before = await admin.fetchTopicOffsets("session.events");
    await admin.disconnect();

    const [source, dest] = service.stack.chains as [LocalChain, LocalChain];
    const burner = await newBurner(source);
    const res = await fetch(`${service.url}/sessions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(sessionBody(burner, dest)),
    });
    const { id } = await json(res);

    const type = avsc.Type.forSchema(JSON.parse(readFileSync("schemas/SessionEvent.avsc", "utf8")));
    const consumer = kafka.consumer({ groupId: `outside-${Date.now()}` });
    await consumer.connect();
    await consumer.subscribe({ topic: "session.events", fromBeginning: false });
    const found = new Promise<Record<string, unknown>>((resolve) => {
      void consumer.run({
        eachMessage: async ({ message }) => {
          const bytes = message.value as Buffer;
          expect(bytes.subarray(0, 2).toString("hex")).toBe("c301"); // single-object marker
          const record = type.fromBuffer(bytes.subarray(10)) as Record<string, unknown>;
          if (record.session_id === id) resolve(record);
        },
      });
    });
    for (const p of before)
      consumer.seek({ topic: "session.events", partition: p.partition, offset: p.offset });
    const record = await found;
    await consumer.disconnect();

    expect(record).toMatchObject({ session_id: id, version: 1 });
    const event = record.event as Record<string, Record<string, unknown>>;
    const created = event["settlement.v1.SessionCreated"];
    expect(created).toBeDefined();
    expect(String(created?.burner).toLowerCase()).toBe(burner.address.toLowerCase());
  });
});
