import { describe, expect, it } from "vitest";
import { coalescingSender } from "../../src/kafka/at-least-once.ts";

const msg = (key: string) => ({ key, value: Buffer.from(key) });

/** A write that records what it was given and finishes only when told to. */
function controlledWrite() {
  const writes: Array<Map<string, Array<{ key: string }>>> = [];
  const finishers: Array<(error?: Error) => void> = [];
  const write = (byTopic: Map<string, Array<{ key: string }>>) =>
    new Promise<void>((resolve, reject) => {
      writes.push(byTopic);
      finishers.push((error) => (error ? reject(error) : resolve()));
    });
  const keys = (i: number) =>
    Object.fromEntries([...(writes[i] ?? [])].map(([t, ms]) => [t, ms.map((m) => m.key)]));
  return { write, writes, finishers, keys };
}

const settled = () => new Promise((r) => setImmediate(r));

describe("coalescingSender", () => {
  it("writes a lone send at once, in a request of its own", async () => {
    const w = controlledWrite();
    const send = coalescingSender(w.write);
    const sent = send("a", [msg("1")]);
    expect(w.keys(0)).toEqual({ a: ["1"] });
    w.finishers[0]?.();
    await expect(sent).resolves.toBeUndefined();
  });

  it("sends made while a request is in flight go together in the next one, in call order per topic", async () => {
    const w = controlledWrite();
    const send = coalescingSender(w.write);
    const first = send("a", [msg("1")]);
    const later = [send("a", [msg("2")]), send("b", [msg("x")]), send("a", [msg("3"), msg("4")])];
    expect(w.writes).toHaveLength(1);
    w.finishers[0]?.();
    await first;
    await settled();
    expect(w.writes).toHaveLength(2);
    expect(w.keys(1)).toEqual({ a: ["2", "3", "4"], b: ["x"] });
    let resolved = false;
    void Promise.all(later).then(() => {
      resolved = true;
    });
    await settled();
    expect(resolved).toBe(false); // not before their own request succeeded
    w.finishers[1]?.();
    await Promise.all(later);
  });

  it("a failed request fails every send it carried, and later sends go on", async () => {
    const w = controlledWrite();
    const send = coalescingSender(w.write);
    const first = send("a", [msg("1")]);
    const carried = [send("a", [msg("2")]), send("a", [msg("3")])];
    w.finishers[0]?.();
    await first;
    await settled();
    w.finishers[1]?.(new Error("broker gone"));
    for (const c of carried) await expect(c).rejects.toThrow("broker gone");
    const after = send("a", [msg("4")]);
    expect(w.keys(2)).toEqual({ a: ["4"] });
    w.finishers[2]?.();
    await expect(after).resolves.toBeUndefined();
  });

  it("a send of no messages writes nothing", async () => {
    const w = controlledWrite();
    await coalescingSender(w.write)("a", []);
    expect(w.writes).toHaveLength(0);
  });
});
