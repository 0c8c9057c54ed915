import { describe, expect, it } from "vitest";
import type { SessionCommand } from "../../src/domain/commands.ts";
import type { SessionView } from "../../src/domain/view.ts";
import { type CommandPort, type LiveUpdatesPort, ReplyTimeoutError } from "../../src/gateway/ports.ts";
import { awaitReadable } from "../../src/projections/read-your-writes.ts";
import type { GatewayReply } from "../../src/records/gateway-replies.ts";
import type { SessionStateRecord } from "../../src/records/session-state.ts";

const ID = "6f1c1d9e-8f2a-4b7c-9d1e-2a3b4c5d6e7f";
const CONFIRM_AFTER_MS = 100;
const TIMEOUT_MS = 400;

const state = (version: number): SessionStateRecord => ({
  version,
  session: { id: ID, status: "pending" } as unknown as SessionView,
});
const command = { data: { sessionId: ID }, metadata: {} } as unknown as SessionCommand;
const accepted = (version: number): GatewayReply => ({
  gatewayId: "g",
  correlationId: "c",
  status: 200,
  code: null,
  message: null,
  session: state(version),
});

/**
 * The ports around the wrapper: an owner that answers `reply` (running `beforeReply` first, where a
 * test publishes what the projector published meanwhile), session.state, and a read model row.
 */
function fakeService(reply: GatewayReply) {
  const listeners = new Set<(s: SessionStateRecord) => void>();
  let stored: number | null = null;
  let reads = 0;
  let beforeReply = () => {};
  const owner: CommandPort = {
    async send() {
      beforeReply();
      return reply;
    },
  };
  const live: LiveUpdatesPort = {
    subscribe(id, listener) {
      expect(id).toBe(ID);
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  const readModel = {
    async getView() {
      reads++;
      return stored === null ? null : { version: stored, view: state(stored).session };
    },
  };
  const commands = awaitReadable(owner, {
    live,
    readModel,
    timeoutMs: TIMEOUT_MS,
    confirmAfterMs: CONFIRM_AFTER_MS,
  });
  return {
    send: () => commands.send(command),
    /** The projector: the row, then the record on session.state. */
    project(version: number, publish = true) {
      stored = version;
      if (publish) for (const l of [...listeners]) l(state(version));
    },
    onSend(f: () => void) {
      beforeReply = f;
    },
    reads: () => reads,
    listeners: () => listeners.size,
  };
}

const elapsed = async <T>(p: Promise<T>) => {
  const t0 = performance.now();
  const value = await p;
  return { value, ms: performance.now() - t0 };
};

describe("a command's reply waits until every gateway can read its version", () => {
  it("answers once session.state carries the replied version, without reading Cassandra", async () => {
    const svc = fakeService(accepted(1));
    const sending = elapsed(svc.send());
    setTimeout(() => svc.project(1), 20);
    const { value, ms } = await sending;
    expect(value).toEqual(accepted(1));
    expect(ms).toBeGreaterThanOrEqual(15);
    expect(svc.reads()).toBe(0);
    expect(svc.listeners()).toBe(0);
  });

  it("answers at once when the state was published before the reply arrived", async () => {
    const svc = fakeService(accepted(2));
    svc.onSend(() => svc.project(2));
    const { ms } = await elapsed(svc.send());
    expect(ms).toBeLessThan(CONFIRM_AFTER_MS);
    expect(svc.reads()).toBe(0);
  });

  it("does not take an older state for the replied one", async () => {
    const svc = fakeService(accepted(3));
    svc.onSend(() => svc.project(2));
    const sending = elapsed(svc.send());
    setTimeout(() => svc.project(3), CONFIRM_AFTER_MS + 30);
    const { ms } = await sending;
    expect(ms).toBeGreaterThanOrEqual(CONFIRM_AFTER_MS + 25);
    // The read after the grace found v2 and the wait went on until v3 came.
    expect(svc.reads()).toBe(1);
  });

  it("confirms a retried command's state, published before it was watched, with one read", async () => {
    const svc = fakeService(accepted(1));
    svc.project(1);
    const { value, ms } = await elapsed(svc.send());
    expect(value).toEqual(accepted(1));
    expect(ms).toBeGreaterThanOrEqual(CONFIRM_AFTER_MS - 5);
    expect(ms).toBeLessThan(TIMEOUT_MS);
    expect(svc.reads()).toBe(1);
  });

  it("finds at the deadline a state whose record it never received", async () => {
    const svc = fakeService(accepted(1));
    setTimeout(() => svc.project(1, false), CONFIRM_AFTER_MS + 30);
    expect(await svc.send()).toEqual(accepted(1));
    expect(svc.reads()).toBe(2);
  });

  it("fails like an unanswered command when the read model stays behind past the bound", async () => {
    const svc = fakeService(accepted(1));
    const { value, ms } = await elapsed(svc.send().catch((err: unknown) => err));
    expect(value).toBeInstanceOf(ReplyTimeoutError);
    expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    expect(svc.listeners()).toBe(0);
  });

  it("answers a rejection at once: it changed nothing", async () => {
    const rejected: GatewayReply = {
      ...accepted(4),
      status: 409,
      code: "session_exists",
      message: "exists",
    };
    const svc = fakeService(rejected);
    const { value, ms } = await elapsed(svc.send());
    expect(value).toBe(rejected);
    expect(ms).toBeLessThan(CONFIRM_AFTER_MS);
    expect(svc.reads()).toBe(0);
    expect(svc.listeners()).toBe(0);
  });
});
