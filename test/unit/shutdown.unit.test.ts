import { describe, expect, it } from "vitest";
import { drainFor, type StepStopped, stopInTurn } from "../../src/app/shutdown.ts";

const settlesIn = (ms: number, fail?: string) => () =>
  new Promise<void>((resolve, reject) => setTimeout(() => (fail ? reject(new Error(fail)) : resolve()), ms));

describe("a process's stop within SHUTDOWN_TIMEOUT_MS", () => {
  it("stops the steps one after another and reports each with how long it took", async () => {
    const order: string[] = [];
    const heard: StepStopped[] = [];
    const step = (name: string, ms: number) => ({
      name,
      stop: async () => {
        order.push(`${name} begins`);
        await settlesIn(ms)();
        order.push(`${name} ends`);
      },
    });
    const outcome = await stopInTurn([step("gateway", 20), step("actors", 5)], {
      boundMs: 1000,
      onStep: (s) => heard.push(s),
    });
    expect(order).toEqual(["gateway begins", "gateway ends", "actors begins", "actors ends"]);
    expect(outcome.kind).toBe("stopped");
    expect(heard.map((s) => s.name)).toEqual(["gateway", "actors"]);
    expect(heard[0]?.tookMs).toBeGreaterThanOrEqual(15);
  });

  it("goes on past a step that fails, and records why", async () => {
    const outcome = await stopInTurn(
      [
        { name: "executor", stop: settlesIn(1, "broker away") },
        { name: "cassandra", stop: settlesIn(1) },
      ],
      { boundMs: 1000 },
    );
    expect(outcome.kind).toBe("stopped");
    expect(outcome.steps.map((s) => [s.name, s.error])).toEqual([
      ["executor", "broker away"],
      ["cassandra", undefined],
    ]);
  });

  it("gives up at the bound and names the step still stopping; the steps after it never begin", async () => {
    let laterBegan = false;
    const outcome = await stopInTurn(
      [
        { name: "gateway", stop: settlesIn(1) },
        { name: "webhooks", stop: () => new Promise<void>(() => {}) },
        {
          name: "cassandra",
          stop: async () => {
            laterBegan = true;
          },
        },
      ],
      { boundMs: 50 },
    );
    expect(outcome).toMatchObject({ kind: "timed-out", stillStopping: "webhooks" });
    expect(outcome.steps.map((s) => s.name)).toEqual(["gateway"]);
    expect(outcome.tookMs).toBeGreaterThanOrEqual(45);
    expect(laterBegan).toBe(false);
  });

  it("drains a gateway on SIGTERM; not on SIGINT (someone at a terminal), nor a consumer-only process", () => {
    const drains = [
      drainFor("SIGTERM", 3000, true),
      drainFor("SIGINT", 3000, true),
      drainFor("SIGTERM", 3000, false),
    ];
    expect(drains).toEqual([3000, 0, 0]);
  });
});
