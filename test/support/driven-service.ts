import { randomBytes } from "node:crypto";
import { afterAll, beforeAll } from "vitest";
import type { Address, Hex } from "../../src/domain/types.ts";
import { createPlainProducer, type PlainProducer } from "../../src/kafka/at-least-once.ts";
import { startTestService, type TestService } from "./service.ts";

export const randomHex = (bytes: number): Hex => `0x${randomBytes(bytes).toString("hex")}`;
export const randomAddress = (): Address => randomHex(20);

/**
 * For integration tests that drive the topics themselves: the real servers with no roles running,
 * and a plain producer, set up before the file's tests and closed after them.
 */
export function drivenService(): { readonly service: TestService; readonly producer: PlainProducer } {
  let service: TestService | undefined;
  let producer: PlainProducer | undefined;
  beforeAll(async () => {
    service = await startTestService({ roles: [] });
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
