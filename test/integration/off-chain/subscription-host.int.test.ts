import { randomUUID } from "node:crypto";
import { keccak256, toHex } from "viem";
import { afterAll, describe, expect, it } from "vitest";
import { subscriptionCommandPort } from "../../../src/app/entity-modules/subscription.ts";
import { subscriptionIdFromDigest } from "../../../src/chains/evm/subscriptions/subscriptions.ts";
import type { SubscriptionCommand } from "../../../src/domain/subscription/types.ts";
import type { GatewayBus } from "../../../src/kafka/gateway-bus.ts";
import { readTopic } from "../../../src/kafka/topic-reader.ts";
import { startActorsWithBus } from "../../support/actors-bus.ts";
import { codecs } from "../../support/codecs.ts";
import type { TestService } from "../../support/service.ts";
import { termsFixture } from "../../support/subscriptions.ts";

// The subscription entity on the generic host across a restart: the second host restores the
// subscription from subscription.events (and snapshots) and decides against it. The mandate starts
// a day from now, so the timer charges nothing meanwhile.
const env = { MERCHANT_MODE: "development" };
let service: TestService | undefined;
let bus: GatewayBus | undefined;
afterAll(async () => {
  await bus?.stop();
  await service?.stop();
});

const meta = () => ({ commandId: randomUUID(), issuedAt: Date.now(), replyTo: null });

async function actors(): Promise<GatewayBus> {
  const started = await startActorsWithBus(env);
  service = started.service;
  return started.bus;
}

describe("subscription actors on the generic host", () => {
  it("decide against the restored subscription after the host restarts", async () => {
    const digest = keccak256(toHex(randomUUID()));
    const subscriptionId = subscriptionIdFromDigest(digest);
    const start = Math.floor(Date.now() / 1000) + 86_400;
    const create: SubscriptionCommand = {
      type: "CreateSubscription",
      data: { subscriptionId, ...termsFixture({ start, period: 3_600 }), digest },
      metadata: meta(),
    };
    bus = await actors();
    let subscriptions = subscriptionCommandPort(bus, codecs);
    const created = await subscriptions.send(create);
    expect([created.status, created.code, created.session]).toEqual([200, null, null]);
    await bus.stop();
    await service?.stop();

    bus = await actors();
    subscriptions = subscriptionCommandPort(bus, codecs);
    const again = await subscriptions.send({ ...create, metadata: meta() });
    expect([again.status, again.code]).toEqual([409, "subscription_exists"]);
    const cancel = (source: "merchant" | "chain", merchantId: string | null): SubscriptionCommand => ({
      type: "CancelSubscription",
      data: { subscriptionId, source, merchantId, signature: null, txHash: null },
      metadata: meta(),
    });
    expect((await subscriptions.send(cancel("merchant", "m_other"))).code).toBe("subscription_not_found");
    expect((await subscriptions.send(cancel("merchant", "m_1"))).code).toBeNull();
    // Canceled already: the chain's cancel is accepted with nothing new.
    expect((await subscriptions.send(cancel("chain", null))).code).toBeNull();
    // The journal holds the creation and the one cancel, in order, across both hosts.
    const journal: string[] = [];
    const svc = service as TestService;
    await readTopic(svc.kafka, {
      topic: "subscription.events",
      from: new Map(Array.from({ length: svc.config.SESSION_PARTITIONS }, (_, p) => [p, 0n] as const)),
      onBatch: (records) => {
        for (const r of records) {
          if (r.key?.toString() !== subscriptionId || !r.value) continue;
          const e = codecs.subscriptionEvent.decode(r.value);
          journal.push(`${e.metadata.version}:${e.type}`);
        }
      },
    });
    expect(journal).toEqual(["1:SubscriptionCreated", "2:SubscriptionCanceled"]);
  }, 120_000);
});
