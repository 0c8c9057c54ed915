// The graceful stop on SIGTERM (issue 29, item 1) with real processes: the bundled CLI's roles as
// children over a broker and a Cassandra node of this file's own (the shared ones are never
// stopped or joined: the webhooks group here is the throwaway broker's). A gateway stopped under a
// trickle of requests answers every request it took (a clean 503 with Retry-After at most) and
// cuts none; a webhooks worker stopped beside another leaves the group at once, so the other holds
// every partition long before the session timeout would have handed them over.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { AssignerProtocol, Kafka, logLevel } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WEBHOOKS_GROUP } from "../../src/webhooks/worker.ts";
import { TOPIC } from "../../topics/catalogue.ts";
import { type Child, startChild } from "../support/child-process.ts";
import { bundleCli } from "../support/fault-proof/bundle.ts";
import { READY } from "../support/fault-proof/cluster.ts";
import { startThrowawayServer, type ThrowawayServer } from "../support/throwaway-servers.ts";

const SESSION_TIMEOUT_MS = 30_000;
const DRAIN_MS = 1_500;

let kafka: ThrowawayServer;
let cassandra: ThrowawayServer;
let cli: string;
let env: Record<string, string>;
const children: Child[] = [];

beforeAll(async () => {
  [kafka, cassandra, cli] = await Promise.all([
    startThrowawayServer("kafka"),
    startThrowawayServer("cassandra"),
    bundleCli(),
  ]);
  env = {
    KAFKA_BROKERS: kafka.address,
    CASSANDRA_CONTACT_POINTS: cassandra.address,
    CASSANDRA_KEYSPACE: "graceful_stop",
    MERCHANT_MODE: "development",
    LOG_LEVEL: "warn",
    PORT: "0",
    KAFKA_SESSION_TIMEOUT_MS: String(SESSION_TIMEOUT_MS),
    SHUTDOWN_DRAIN_MS: String(DRAIN_MS),
    SHUTDOWN_TIMEOUT_MS: "15000",
  };
  await promisify(execFile)(process.execPath, [cli, "migrate"], { env: { ...process.env, ...env } });
}, 300_000);

afterAll(async () => {
  await Promise.allSettled(children.map((c) => c.stop()));
  await Promise.allSettled([kafka?.remove(), cassandra?.remove()]);
});

/** A role of the bundled CLI as a child; `lines` gets everything it writes. */
async function startRole(role: "gateway" | "webhooks", name: string, lines: string[]) {
  const child = await startChild(name, [cli, role], {
    env,
    tsx: false,
    ready: READY[role],
    timeoutMs: 180_000,
    onLine: (l) => lines.push(l),
  });
  children.push(child);
  return child;
}

const until = async (what: string, ok: () => boolean | Promise<boolean>, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`not ${what} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

const exitOf = (child: Child) =>
  until("exited", () => child.exited() !== null, 60_000).then(() => child.exited());

describe("a gateway stopped with SIGTERM under a trickle of requests", () => {
  it("reports not ready first, answers every request it took (503 with Retry-After at most), cuts none", async () => {
    const lines: string[] = [];
    const gateway = await startRole("gateway", "gateway", lines);
    await until("serving metrics", () => lines.some((l) => /^metrics\s+http/.test(l)), 10_000);
    const metrics = (/^metrics\s+(http:\/\/\S+)\/metrics/.exec(
      lines.find((l) => /^metrics\s/.test(l)) ?? "",
    ) ?? [])[1];
    type Outcome = { at: number; status?: number; retryAfter?: string | null; error?: string };
    const outcomes: Outcome[] = [];
    let trickling = true;
    // Three clients, each one request after another on its kept-alive connection.
    const client = async () => {
      while (trickling) {
        const at = Date.now();
        try {
          const res = await fetch(`${gateway.ready}/sessions/00000000-0000-4000-8000-000000000000`);
          await res.arrayBuffer();
          outcomes.push({ at, status: res.status, retryAfter: res.headers.get("retry-after") });
        } catch (err) {
          const cause = (err as { cause?: { code?: string } }).cause;
          outcomes.push({ at, error: cause?.code ?? String(err) });
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    const clients = [client(), client(), client()];
    await new Promise((r) => setTimeout(r, 1_000));
    const termAt = Date.now();
    process.kill(gateway.pid, "SIGTERM");
    // Not ready at once, while the API still answers through the drain.
    await until("not ready", async () => (await fetch(`${metrics}/ready`)).status === 503, 1_000);
    const notReadyAfterMs = Date.now() - termAt;
    const exit = await exitOf(gateway);
    await new Promise((r) => setTimeout(r, 300));
    trickling = false;
    await Promise.all(clients);

    const answered = outcomes.filter((o) => o.status !== undefined);
    const wrong5xx = answered.filter(
      (o) => (o.status as number) >= 500 && !(o.status === 503 && o.retryAfter),
    );
    // Refused: the listener had closed, so the request never reached the gateway (a balancer, or
    // the client, sends it elsewhere). Anything else is a request taken and then dropped.
    const dropped = outcomes.filter((o) => o.error !== undefined && o.error !== "ECONNREFUSED");
    console.log(
      `gateway stop: /ready 503 after ${notReadyAfterMs} ms; ${answered.length} answered (${
        answered.filter((o) => o.status === 503).length
      } 503), ${outcomes.length - answered.length - dropped.length} refused after the close, ${dropped.length} dropped; ${
        lines.find((l) => l.startsWith("stopped in")) ?? "(no stop line)"
      }`,
    );
    expect(notReadyAfterMs).toBeLessThan(DRAIN_MS);
    expect(answered.filter((o) => o.at > termAt && o.at < termAt + DRAIN_MS - 200).length).toBeGreaterThan(0);
    expect(answered.filter((o) => o.status === 404).length).toBeGreaterThan(10);
    expect(wrong5xx).toEqual([]);
    expect(dropped).toEqual([]);
    expect(exit).toBe(0);
    expect(lines.some((l) => /^stopped in \d+ ms after the drain/.test(l))).toBe(true);
  }, 300_000);
});

describe("a consumer stopped with SIGTERM beside another of its role", () => {
  it("leaves its group at once: the other holds every partition well before the session timeout", async () => {
    const admin = new Kafka({ brokers: [kafka.address], logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      const [topic] = (await admin.fetchTopicMetadata({ topics: [TOPIC.webhookEvents] })).topics;
      const partitions = topic?.partitions.length ?? 0;
      expect(partitions).toBeGreaterThan(1);
      /** The group's members and how many partitions of webhook.events each holds, once it is stable. */
      const members = async () => {
        const [group] = (await admin.describeGroups([WEBHOOKS_GROUP])).groups;
        if (group?.state !== "Stable") return null;
        return group.members.map((m) => {
          const assigned = AssignerProtocol.MemberAssignment.decode(m.memberAssignment);
          return { clientHost: m.clientHost, held: assigned?.assignment[TOPIC.webhookEvents]?.length ?? 0 };
        });
      };
      const first = await startRole("webhooks", "webhooks-1", []);
      const secondLines: string[] = [];
      await startRole("webhooks", "webhooks-2", secondLines);
      await until(
        "shared by two",
        async () => (await members())?.filter((m) => m.held > 0).length === 2,
        120_000,
      );

      const termAt = Date.now();
      process.kill(first.pid, "SIGTERM");
      await until(
        "held by the one left",
        async () => {
          const now = await members();
          return now?.length === 1 && now[0]?.held === partitions;
        },
        SESSION_TIMEOUT_MS,
      );
      const handedOverMs = Date.now() - termAt;
      const exit = await exitOf(first);
      console.log(
        `consumer stop: ${partitions} partitions held by the other member ${handedOverMs} ms after SIGTERM (session timeout ${SESSION_TIMEOUT_MS} ms)`,
      );
      // A third of the session timeout: a member that vanished without leaving would hold them all of it.
      expect(handedOverMs).toBeLessThan(SESSION_TIMEOUT_MS / 3);
      expect(exit).toBe(0);
    } finally {
      await admin.disconnect();
    }
  }, 300_000);
});
