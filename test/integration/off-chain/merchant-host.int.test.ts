import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { merchantCommandPort } from "../../../src/app/entity-modules/merchant.ts";
import type { MerchantCommand } from "../../../src/domain/merchant/types.ts";
import { issueKey, newMerchantId } from "../../../src/gateway/merchant-keys.ts";
import type { GatewayBus } from "../../../src/kafka/gateway-bus.ts";
import { startActorsWithBus } from "../../support/actors-bus.ts";
import { codecs } from "../../support/codecs.ts";
import type { TestService } from "../../support/service.ts";

// The merchant entity on the generic host across a restart: the second host restores the merchant
// from the journal (and snapshots) and decides against it.
const env = { MERCHANT_MODE: "development" };
let service: TestService | undefined;
let bus: GatewayBus | undefined;
afterAll(async () => {
  await bus?.stop();
  await service?.stop();
});

const command = (merchantId: string, type: MerchantCommand["type"], data: object): MerchantCommand =>
  ({
    type,
    data: { merchantId, ...data },
    metadata: { commandId: randomUUID(), issuedAt: Date.now(), replyTo: null },
  }) as MerchantCommand;

async function actors(): Promise<GatewayBus> {
  const started = await startActorsWithBus(env);
  service = started.service;
  return started.bus;
}

describe("merchant actors on the generic host", () => {
  it("decide against the restored merchant after the host restarts", async () => {
    const email = `restart-${randomUUID()}@merchant.test`;
    const id = newMerchantId();
    const sk = issueKey("secret", "test");
    bus = await actors();
    let merchants = merchantCommandPort(bus, codecs);
    const created = await merchants.send(
      command(id, "CreateMerchant", { name: "Shop", email, keys: [sk.issued] }),
    );
    expect([created.status, created.code, created.session]).toEqual([200, null, null]);
    await bus.stop();
    await service?.stop();

    bus = await actors();
    merchants = merchantCommandPort(bus, codecs);
    const revoke = await merchants.send(command(id, "RevokeKey", { keyId: sk.issued.keyId }));
    expect([revoke.status, revoke.code]).toEqual([200, null]);
    const again = await merchants.send(command(id, "CreateMerchant", { name: "Other", email, keys: [] }));
    expect([again.status, again.code, again.message]).toEqual([409, "merchant_exists", "conflict"]);
    const unknown = await merchants.send(command(id, "RevokeKey", { keyId: "key_nope" }));
    expect(unknown.code).toBe("key_not_found");
  }, 120_000);
});
