import { randomBytes } from "node:crypto";
import { afterAll, beforeAll } from "vitest";
import type { Role } from "../../src/app/roles.ts";
import type { CreateSession } from "../../src/domain/commands.ts";
import type { Address, Hex } from "../../src/domain/types.ts";
import { createPlainProducer, type PlainProducer } from "../../src/kafka/at-least-once.ts";
import type { TransferObserved } from "../../src/records/chain-transfers.ts";
import { startTestService, type TestService } from "./service.ts";

export const randomHex = (bytes: number): Hex => `0x${randomBytes(bytes).toString("hex")}`;
export const randomAddress = (): Address => randomHex(20);

/**
 * A CreateSession as the gateway would send it, with random addresses and an authorization the actors
 * do not check (the gateway did); `data` replaces any field.
 */
export function createSessionCommand(id: string, data: Partial<CreateSession["data"]> = {}): CreateSession {
  return {
    type: "CreateSession",
    data: {
      sessionId: id,
      flow: "p2p_request",
      merchantId: null,
      pinnedOnly: false,
      burner: randomAddress(),
      auth: {
        address: randomAddress(),
        chainId: 31_337,
        nonce: 0,
        r: randomHex(32),
        s: randomHex(32),
        yParity: 1,
      },
      destAddress: randomAddress(),
      destChainId: 31_338,
      appFeeBps: 0,
      appFeeRecipient: randomAddress(),
      standingRefund: null,
      stealth: null,
      stealthDestinations: null,
      expiresAt: Math.floor(Date.now() / 1000) + 3600,
      expectedAmount: null,
      pinnedDestinations: [],
      clientSecretHash: null,
      originChainId: null,
      appFeeRecipientSol: null,
      refundAddress: null,
      ...data,
    },
    metadata: { commandId: `create:${id}`, issuedAt: Date.now(), replyTo: null },
  };
}

/** A confirmed transfer into a session's burner as the indexer publishes it; `fields` replaces any field. */
export function observedTransfer(
  sessionId: string,
  fields: Partial<TransferObserved> = {},
): TransferObserved {
  return {
    sessionId,
    burner: randomAddress(),
    chainId: 31_337,
    token: randomAddress(),
    amount: 1n,
    txHash: randomHex(32),
    logIndex: 0,
    blockNumber: 7n,
    blockHash: randomHex(32),
    from: randomAddress(),
    confirmations: 2,
    observedAt: Date.now(),
    retracted: false,
    // An accepted token with no minimum: the record counts as the session's deposit.
    terms: { accepted: true, minAmount: 1n },
    finality: null,
    ...fields,
  };
}

/**
 * For integration tests that drive the topics themselves: the real servers with no roles running
 * (or only `roles`), and a plain producer, set up before the file's tests and closed after them.
 */
export function drivenService(opts: { roles?: Role[] } = {}): {
  readonly service: TestService;
  readonly producer: PlainProducer;
} {
  let service: TestService | undefined;
  let producer: PlainProducer | undefined;
  beforeAll(async () => {
    service = await startTestService({ roles: opts.roles ?? [] });
    producer = createPlainProducer(service.kafka);
    await producer.connect();
  });
  afterAll(async () => {
    await producer?.disconnect();
    await service?.stop();
  });
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("drivenService() is used before its beforeAll ran");
    return value;
  };
  return {
    get service() {
      return ready(service);
    },
    get producer() {
      return ready(producer);
    },
  };
}
