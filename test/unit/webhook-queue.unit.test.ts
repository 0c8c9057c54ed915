import { describe, expect, it } from "vitest";
import { createDeliveryQueue, type DeliveryJob } from "../../src/webhooks/queue.ts";

const job = (key: string): DeliveryJob => ({
  bucket: null,
  idempotencyKey: key,
  merchantId: "m",
  payload: "{}",
  attempts: 0,
  nextRetryAt: 0,
});

/** A run whose calls wait until the test releases them. */
function gated() {
  const started: string[] = [];
  const release = new Map<string, () => void>();
  const run = (j: DeliveryJob) =>
    new Promise<void>((resolve) => {
      started.push(j.idempotencyKey);
      release.set(j.idempotencyKey, resolve);
    });
  const finish = async (key: string) => {
    release.get(key)?.();
    await new Promise((r) => setTimeout(r, 0));
  };
  return { started, run, finish };
}

describe("the delivery queue", () => {
  it("runs at most `concurrency` attempts, first queued first started", async () => {
    const g = gated();
    const q = createDeliveryQueue({ concurrency: 2, maxQueued: 10, run: g.run });
    for (const k of ["a", "b", "c", "d"]) expect(q.push(job(k))).toBe(true);
    expect(g.started).toEqual(["a", "b"]);
    expect([q.running(), q.waiting()]).toEqual([2, 2]);
    await g.finish("b");
    expect(g.started).toEqual(["a", "b", "c"]);
    await g.finish("a");
    expect(g.started).toEqual(["a", "b", "c", "d"]);
  });

  it("holds a key once while it is queued or running, and takes it again once done", async () => {
    const g = gated();
    const q = createDeliveryQueue({ concurrency: 1, maxQueued: 10, run: g.run });
    expect(q.push(job("a"))).toBe(true);
    expect(q.push(job("a"))).toBe(false);
    expect(q.push(job("b"))).toBe(true);
    expect(q.push(job("b"))).toBe(false);
    await g.finish("a");
    expect(q.push(job("a"))).toBe(true);
  });

  it("frees an attempt's place once its request is sent, and holds its key until its outcome is written", async () => {
    const sent = new Map<string, () => void>();
    const recorded = new Map<string, () => void>();
    const started: string[] = [];
    const q = createDeliveryQueue({
      concurrency: 1,
      maxQueued: 10,
      run: (j, markSent) =>
        new Promise<void>((resolve) => {
          started.push(j.idempotencyKey);
          sent.set(j.idempotencyKey, markSent);
          recorded.set(j.idempotencyKey, resolve);
        }),
    });
    for (const k of ["a", "b", "c", "d", "e", "f"]) q.push(job(k));
    expect(started).toEqual(["a"]);
    sent.get("a")?.();
    expect(started).toEqual(["a", "b"]);
    expect(q.push(job("a"))).toBe(false);
    // Writing outcomes is bounded too: four per place.
    for (const k of ["b", "c", "d"]) sent.get(k)?.();
    expect(started).toEqual(["a", "b", "c", "d"]);
    recorded.get("a")?.();
    await new Promise((r) => setTimeout(r, 0));
    expect(started).toEqual(["a", "b", "c", "d", "e"]);
    expect(q.push(job("a"))).toBe(true);
  });

  it("refuses past maxQueued waiting (the ledger keeps them due)", () => {
    const g = gated();
    const q = createDeliveryQueue({ concurrency: 1, maxQueued: 2, run: g.run });
    expect(["a", "b", "c", "d"].map((k) => q.push(job(k)))).toEqual([true, true, true, false]);
  });

  it("on stop drops what has not started and waits for what runs", async () => {
    const g = gated();
    const q = createDeliveryQueue({ concurrency: 1, maxQueued: 10, run: g.run });
    q.push(job("a"));
    q.push(job("b"));
    let stopped = false;
    const stopping = q.stop().then((dropped) => {
      stopped = true;
      return dropped;
    });
    await new Promise((r) => setTimeout(r, 5));
    expect(stopped).toBe(false);
    await g.finish("a");
    // The job dropped is answered, so the worker can give back its claim (src/webhooks/worker.ts).
    expect((await stopping).map((j) => j.idempotencyKey)).toEqual(["b"]);
    expect(g.started).toEqual(["a"]);
    expect(q.push(job("c"))).toBe(false);
  });
});
