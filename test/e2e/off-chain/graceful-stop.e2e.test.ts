// The graceful stop on SIGTERM (issue 29, item 1), short form for CI, with real processes: roles of
// the bundled CLI as children over the run's broker and Cassandra. A gateway stopped under a trickle
// of requests, from clients behind a balancer that follows its /ready as a Kubernetes Service does,
// reports not ready at once, answers every request it took with Connection: close (a clean 503
// with Retry-After at most), cuts none and exits 0. A webhooks worker stopped beside another leaves
// the group at once, so the other holds every partition long before a session timeout would have
// handed them over. (The same gateway stop many times over, and with clients ignoring /ready:
// test/bench/graceful-stop.ts.)
import { AssignerProtocol, Kafka, logLevel } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WEBHOOKS_GROUP } from "../../../src/webhooks/worker.ts";
import { TOPIC } from "../../../topics/catalogue.ts";
import { type Child, startChild } from "../../support/child-process.ts";
import { bundleCli } from "../../support/fault-proof/bundle.ts";
import { READY } from "../../support/fault-proof/cluster.ts";
import { LOADED_GATEWAY_ENV } from "../../support/gateway-children.ts";
import { describeTrickle, trickleThroughStop } from "../../support/graceful-stop.ts";

const DRAIN_MS = 1_500;
/**
 * The balancer looks at /ready this often and acts on a 503 this long after: well inside the drain,
 * as the manifests' 2 s probe period plus the preStop sleep are inside theirs.
 */
const BALANCER = { pollMs: 250, lagMs: 300 };
/** The workers' session timeout: what a member that vanished without leaving would hold them for. */
const SESSION_TIMEOUT_MS = 30_000;
/** Our workers' client id, so the group's members that are ours are told from any other. */
const CLIENT_ID = `graceful-stop-${process.pid}`;
const METRICS_LINE = /^metrics\s+(http:\/\/\S+)\/metrics/;

let cli: string;
const children: Child[] = [];

beforeAll(async () => {
  cli = await bundleCli();
}, 60_000);
afterAll(async () => {
  await Promise.allSettled(children.map((c) => c.stop()));
});

/** A role of the bundled CLI as a child; `lines` gets everything it writes. */
async function startRole(
  role: "gateway" | "webhooks",
  name: string,
  env: Record<string, string>,
  lines: string[],
) {
  const child = await startChild(name, [cli, role], {
    env: { LOG_LEVEL: "warn", SHUTDOWN_TIMEOUT_MS: "15000", ...env },
    tsx: false,
    ready: READY[role],
    timeoutMs: 120_000,
    started: (c) => children.push(c),
    onLine: (l) => lines.push(l),
  });
  return child;
}

const until = async (what: string, ok: () => boolean | Promise<boolean>, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`not ${what} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe("a gateway stopped with SIGTERM under a trickle of requests from behind a balancer", () => {
  it("reports not ready first, answers every request it took with Connection: close, cuts none, exits 0", async () => {
    const lines: string[] = [];
    const gateway = await startRole(
      "gateway",
      "gateway",
      { ...LOADED_GATEWAY_ENV, SHUTDOWN_DRAIN_MS: String(DRAIN_MS) },
      lines,
    );
    await until("serving metrics", () => lines.some((l) => METRICS_LINE.test(l)), 10_000);
    const metrics = METRICS_LINE.exec(lines.find((l) => METRICS_LINE.test(l)) ?? "")?.[1] ?? "";
    const t = await trickleThroughStop({
      gateway,
      metrics,
      path: "/sessions/00000000-0000-4000-8000-000000000000",
      clients: 3,
      pauseMs: 20,
      balancer: BALANCER,
    });
    console.log(
      `gateway stop: ${describeTrickle(t)}; ${lines.find((l) => l.startsWith("stopped in")) ?? "(no stop line)"}`,
    );

    expect(t.notReadyAfterMs).toBeLessThan(BALANCER.pollMs);
    const answered = t.outcomes.filter((o) => o.status !== undefined);
    expect(answered.filter((o) => o.status === 404).length).toBeGreaterThan(10);
    // Requests came in once the gateway said not ready (its drain had begun), before the balancer
    // acted on it, and each answer closed its connection, so none was left for the close to cut.
    const inDrain = answered.filter((o) => o.at >= t.termAt + t.notReadyAfterMs);
    expect(inDrain.length).toBeGreaterThan(0);
    expect(inDrain.filter((o) => o.connection !== "close")).toEqual([]);
    expect(t.sentElsewhere).toBeGreaterThan(0);
    // None failed: not refused, not reset; no 5xx but a clean 503 with Retry-After.
    expect(t.outcomes.filter((o) => o.error !== undefined)).toEqual([]);
    expect(
      answered.filter((o) => (o.status as number) >= 500 && !(o.status === 503 && o.retryAfter)),
    ).toEqual([]);
    expect(t.exit).toBe(0);
    expect(lines.some((l) => /^stopped in \d+ ms after the drain/.test(l))).toBe(true);
  }, 120_000);
});

describe("a consumer stopped with SIGTERM beside another of its role", () => {
  it("leaves its group at once: the other holds every partition well before the session timeout", async () => {
    const admin = new Kafka({
      brokers: (process.env.KAFKA_BROKERS ?? "").split(","),
      logLevel: logLevel.NOTHING,
    }).admin();
    await admin.connect();
    try {
      const [topic] = (await admin.fetchTopicMetadata({ topics: [TOPIC.webhookEvents] })).topics;
      const partitions = topic?.partitions.length ?? 0;
      expect(partitions).toBeGreaterThan(1);
      /** Our members of the group and how many partitions of webhook.events each holds, once it is stable. */
      const ours = async () => {
        const [group] = (await admin.describeGroups([WEBHOOKS_GROUP])).groups;
        if (group?.state !== "Stable") return null;
        return group.members
          .filter((m) => m.clientId === CLIENT_ID)
          .map((m) => {
            const assigned = AssignerProtocol.MemberAssignment.decode(m.memberAssignment);
            return assigned?.assignment[TOPIC.webhookEvents]?.length ?? 0;
          });
      };
      const env = { KAFKA_CLIENT_ID: CLIENT_ID, KAFKA_SESSION_TIMEOUT_MS: String(SESSION_TIMEOUT_MS) };
      const [first] = await Promise.all([
        startRole("webhooks", "webhooks-1", env, []),
        startRole("webhooks", "webhooks-2", env, []),
      ]);
      await until(
        "shared by our two",
        async () => (await ours())?.filter((held) => held > 0).length === 2,
        60_000,
      );

      const termAt = Date.now();
      process.kill((first as Child).pid, "SIGTERM");
      await until(
        "held by the one left",
        async () => {
          const now = await ours();
          return now?.length === 1 && now[0] === partitions;
        },
        SESSION_TIMEOUT_MS,
      );
      const handedOverMs = Date.now() - termAt;
      await until("exited", () => (first as Child).exited() !== null, 30_000);
      console.log(
        `consumer stop: ${partitions} partitions held by the other member ${handedOverMs} ms after SIGTERM (session timeout ${SESSION_TIMEOUT_MS} ms)`,
      );
      // A third of the session timeout: a member that vanished without leaving would hold them all of it.
      expect(handedOverMs).toBeLessThan(SESSION_TIMEOUT_MS / 3);
      expect((first as Child).exited()).toBe(0);
    } finally {
      await admin.disconnect();
    }
  }, 120_000);
});
