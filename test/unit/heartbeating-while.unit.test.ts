import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createKafka, groupTiming, heartbeatingWhile } from "../../src/kafka/client.ts";

describe("heartbeatingWhile", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());
  // No connection is opened: the client only carries the group timing (heartbeat 300 ms).
  const client = createKafka({ brokers: ["127.0.0.1:1"], clientId: "unit", groupSessionTimeoutMs: 3000 });

  it("heartbeats every heartbeat interval while a batch waits longer than the session, then stops", async () => {
    expect(groupTiming(client).heartbeatInterval).toBe(300);
    const heartbeat = vi.fn(async () => {});
    const done = heartbeatingWhile(
      client,
      heartbeat,
      () => new Promise<string>((r) => setTimeout(() => r("applied"), 5000)),
    );
    await vi.advanceTimersByTimeAsync(5000);
    await expect(done).resolves.toBe("applied");
    expect(heartbeat).toHaveBeenCalledTimes(16);
    await vi.advanceTimersByTimeAsync(3000);
    expect(heartbeat).toHaveBeenCalledTimes(16);
  });

  it("keeps heartbeating past a failed heartbeat (a rebalance under way), and passes on the handler's failure", async () => {
    const heartbeat = vi.fn(async () => {
      throw new Error("REBALANCE_IN_PROGRESS");
    });
    const done = heartbeatingWhile(
      client,
      heartbeat,
      () => new Promise((_, reject) => setTimeout(() => reject(new Error("batch failed")), 1000)),
    );
    const outcome = expect(done).rejects.toThrow("batch failed");
    await vi.advanceTimersByTimeAsync(1000);
    await outcome;
    expect(heartbeat).toHaveBeenCalledTimes(3);
  });
});
