import { existsSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { makeTestCa } from "../test-ca.ts";
import { startWebhookReceiver } from "../webhook-receiver.ts";
import { type Audit, audit } from "./audit.ts";
import { type Cluster, KILLABLE, type ProcessCounts, startCluster } from "./cluster.ts";
import { chainClients, type Flow, type RequestTally, setUpMerchant, startLoad } from "./load.ts";
import { type PartitionGap, watchPartitions } from "./partition-watch.ts";
import { type RollSignal, type RollStep, rollCluster } from "./roll.ts";

/**
 * The many-process fault proof (issue 20, item 4): the cluster of cluster.ts under the load of
 * load.ts for `loadMs`, while (with `chaos`) a loop kills a random process with kill -9 every
 * `chaos.everyMs` and starts its replacement at once, and restarts the broker (a third of the way
 * in) and the Cassandra node (two thirds in) once each; then the count of audit.ts. Its short forms
 * are test/e2e/own-chain/ (CI's off-chain lane), its long forms test/bench/fault-proof.ts and
 * test/bench/rolling-restart.ts.
 */
export interface FaultProofOptions {
  loadMs: number;
  /** A new payer every this many ms. */
  everyMs: number;
  chaos: { everyMs: number } | null;
  /**
   * A rolling restart instead (issue 29, item 4; roll.ts): after a warm-up, every process replaced
   * one at a time, a pass per signal; the load runs until the roll is done, and at least `loadMs`.
   */
  roll?: readonly RollSignal[];
  /** Processes per role; by default the issue's shape (PROCESS_COUNTS). */
  counts?: ProcessCounts;
  log?: (line: string) => void;
}

export interface FaultProofReport extends Audit {
  flows: Flow[];
  /** Every kill -9, as `name after N s`, and the server restarts with how long each was down. */
  chaos: string[];
  /** Sessions settled or refunded a minute, from the first payer until the last one finished. */
  perMinute: number;
  /** Median and 95th percentile of a flow from POST /sessions to settled or refunded, s. */
  flowP50: number;
  flowP95: number;
  /** Replacements not up in time (started again), with why. */
  failedStarts: string[];
  /** Per role, how long each restart after a kill took until the process said it was ready, ms. */
  restartsMs: Record<string, number[]>;
  /** The one-minute load average when the load began and when it ended. */
  load: [number, number];
  /** 99th percentile of a flow, s. */
  flowP99: number;
  /** The payers' HTTP requests by how they ended (load.ts), by phase: "load", or each roll pass. */
  requests: Map<string, RequestTally>;
  /** The roll's steps, and each consumer group's longest unserved partition, by phase as above. */
  roll: RollStep[];
  unserved: Map<string, PartitionGap[]>;
}

/** Payers under way before the roll begins. */
const ROLL_WARM_UP_MS = 5_000;

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0) : 0;
};

export async function runFaultProof(opts: FaultProofOptions): Promise<FaultProofReport> {
  const t0 = Date.now();
  const say = opts.log ?? ((l: string) => console.log(l));
  const log = (l: string) => say(`[${((Date.now() - t0) / 1000).toFixed(0)} s] ${l}`);
  const ca = makeTestCa(["localhost"]);
  const receiver = await startWebhookReceiver(ca);
  let cluster: Cluster | undefined;
  try {
    cluster = await startCluster(log, {
      env: { NODE_EXTRA_CA_CERTS: ca.caFile },
      ...(opts.counts ? { counts: opts.counts } : {}),
    });
    const c = cluster;
    const A = chainClients(c.chain);
    const merchant = await setUpMerchant(c, `https://localhost:${receiver.port}/hook`);
    const fromBlock = await A.client.getBlockNumber();
    const began = Date.now();
    const loadAtStart = loadavg()[0] ?? 0;
    const load = startLoad(c, A, merchant, { everyMs: opts.everyMs, amount: 1_000_000n });
    const brokers = [c.env.KAFKA_BROKERS as string];
    const unserved = new Map<string, PartitionGap[]>();
    const roll: RollStep[] = [];
    // Without a roll the partitions are watched over the whole window, for the figure beside it.
    const whole = opts.roll ? null : await watchPartitions(brokers);
    if (opts.roll) {
      // A warm-up first, so the roll begins with payers under way.
      await new Promise((r) => setTimeout(r, ROLL_WARM_UP_MS));
      for (const signal of opts.roll) {
        load.phase(signal);
        const watch = await watchPartitions(brokers);
        roll.push(...(await rollCluster(c, [signal], log)));
        unserved.set(signal, await watch.stop());
        // The pass's own requests end before the next pass's first kill: one started late in the
        // SIGTERM pass and cut by the kill -9 of its gateway is the kill's, not the SIGTERM's.
        load.phase(`after ${signal}`);
        await load.settle(60_000);
      }
      load.phase("after the roll");
    }
    const chaos: string[] = [];
    const pending: Promise<void>[] = [];
    const at = () => `${((Date.now() - began) / 1000).toFixed(0)} s`;
    if (opts.chaos) {
      const { everyMs } = opts.chaos;
      const restart = async (which: "kafka" | "cassandra") => {
        const when = at();
        log(`chaos: ${which} kill -9`);
        const { downMs } = await c.restartServer(which);
        chaos.push(`${which} kill -9 at ${when}, answering again ${(downMs / 1000).toFixed(1)} s later`);
      };
      const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
      // The broker a third of the way in, the node two thirds in, but never both down at once: a
      // short window would otherwise see the two outages overlap, which proves less about each.
      pending.push(
        sleep(opts.loadMs / 3)
          .then(() => restart("kafka"))
          .then(() => sleep(began + (2 * opts.loadMs) / 3 - Date.now()))
          .then(() => restart("cassandra")),
      );
      const until = began + opts.loadMs;
      while (Date.now() + everyMs < until) {
        await new Promise((r) => setTimeout(r, everyMs));
        const up = c.procs.filter((p) => p.child && KILLABLE.includes(p.role));
        const victim = up[Math.floor(Math.random() * up.length)];
        if (!victim) continue;
        chaos.push(`${victim.name} kill -9 at ${at()}`);
        log(`chaos: ${victim.name} kill -9`);
        pending.push(c.killAndRestart(victim));
      }
    }
    await new Promise((r) => setTimeout(r, Math.max(0, began + opts.loadMs - Date.now())));
    load.close();
    log(`load window over after ${at()}; waiting for restarts and the flows under way`);
    await Promise.all(pending);
    await load.stop();
    if (whole) unserved.set("load", await whole.stop());
    const loadAtEnd = loadavg()[0] ?? 0;
    log(`flows ended after ${at()}; counting`);
    // Webhooks queued by the last transitions are still being delivered: count until none is missing.
    let result = await auditNow(c, load, receiver.received, A, fromBlock);
    for (let i = 0; i < 30 && result.problems.some((p) => p.startsWith("webhook never")); i++) {
      await new Promise((r) => setTimeout(r, 2000));
      result = await auditNow(c, load, receiver.received, A, fromBlock);
    }
    // What the processes logged of an unswept commit or an unfinished flow (its session and command
    // ids), beside what the topics said.
    for (const u of result.explained)
      for (const role of ["executor", "actors", "gateway"])
        u.lines.push(...logLinesOf(c, role, [u.sessionId, ...u.commandIds]).map((l) => `  log ${l}`));
    const done = load.flows.filter((f) => f.doneAt !== null);
    const took = done.map((f) => ((f.doneAt as number) - f.startedAt) / 1000);
    return {
      ...result,
      flows: load.flows,
      chaos,
      // From the first payer to the last one finished: what the cluster got through, recovery included.
      perMinute:
        (done.length * 60_000) / Math.max(1, Math.max(...done.map((f) => f.doneAt as number)) - began),
      flowP50: pct(took, 0.5),
      flowP95: pct(took, 0.95),
      failedStarts: c.procs.flatMap((p) => p.failedStarts.map((e) => `${p.name}: ${e}`)),
      restartsMs: Object.fromEntries(
        [...new Set(c.procs.map((p) => p.role))].map((role) => [
          role,
          c.procs.filter((p) => p.role === role).flatMap((p) => p.restartsMs),
        ]),
      ),
      load: [loadAtStart, loadAtEnd],
      flowP99: pct(took, 0.99),
      requests: load.requests,
      roll,
      unserved,
    };
  } finally {
    await cluster?.stop();
    await receiver.close();
  }
}

/** Lines of the role's processes' logs (cluster.ts keeps them) that name any of `needles`. */
function logLinesOf(c: Cluster, role: string, needles: string[]): string[] {
  const lines: string[] = [];
  for (const p of c.procs.filter((q) => q.role === role)) {
    const file = join(c.logDir, `${p.name}.log`);
    if (!existsSync(file)) continue;
    for (const l of readFileSync(file, "utf8").split("\n"))
      if (needles.some((n) => l.includes(n))) lines.push(`${p.name} ${l.slice(0, 600)}`);
  }
  return lines;
}

function auditNow(
  c: Cluster,
  load: ReturnType<typeof startLoad>,
  received: ReadonlyArray<{ key: string }>,
  A: ReturnType<typeof chainClients>,
  fromBlock: bigint,
) {
  return audit({
    brokers: c.env.KAFKA_BROKERS as string,
    flows: load.flows,
    merchantId: load.merchantId,
    received: received.map((r) => r.key),
    A,
    fromBlock,
  });
}

/** The report in a few lines, for the test's output and docs/RELIABILITY.md. */
export function describeReport(r: FaultProofReport): string {
  const byStep = new Map<string, number>();
  for (const f of r.flows) byStep.set(f.step, (byStep.get(f.step) ?? 0) + 1);
  const unfinished = r.flows.filter((f) => f.step !== "done");
  return [
    `flows ${r.flows.length} (${[...byStep].map(([s, n]) => `${s} ${n}`).join(", ")}); ${r.perMinute.toFixed(1)} settled or refunded a minute; flow p50 ${r.flowP50.toFixed(1)} s, p95 ${r.flowP95.toFixed(1)} s; load average ${r.load[0].toFixed(2)} -> ${r.load[1].toFixed(2)}`,
    `counted: ${Object.entries(r.figures)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}`,
    `chaos (${r.chaos.length}): ${r.chaos.join("; ") || "none"}`,
    `ready again after a kill (s): ${Object.entries(r.restartsMs)
      .filter(([, ms]) => ms.length > 0)
      .map(([role, ms]) => `${role} ${ms.map((m) => (m / 1000).toFixed(1)).join(", ")}`)
      .join("; ")}`,
    `replacements started again: ${r.failedStarts.join("; ") || "none"}`,
    ...unfinished.map(
      (f) => `unfinished #${f.n} ${f.kind} ${f.id ?? "(no session)"} at ${f.step}: ${f.error}`,
    ),
    `problems (${r.problems.length}): ${r.problems.slice(0, 20).join("; ") || "none"}`,
    ...r.explained.flatMap((u) => u.lines),
    `flow p99 ${r.flowP99.toFixed(1)} s`,
    ...[...r.requests].map(([phase, t]) => {
      const bad = [...t.other5xx, ...t.unanswered];
      return `requests (${phase}): ${t.answered} answered (${t.clean503} 503 with Retry-After), ${t.other5xx.length} other 5xx, ${t.refused} refused at connect, ${t.unanswered.length} unanswered${bad.length ? `: ${bad.slice(0, 10).join("; ")}` : ""}`;
    }),
    ...[...r.unserved].map(
      ([phase, gaps]) =>
        `longest unserved partition per group (${phase}, s): ${
          gaps.map((g) => `${g.group} ${g.topic}[${g.partition}] ${(g.ms / 1000).toFixed(1)}`).join("; ") ||
          "none"
        }`,
    ),
    ...r.roll.map(
      (s) =>
        `roll ${s.signal} ${s.name}: exited (${s.exit}) after ${(s.stopMs / 1000).toFixed(1)} s, replacement ready ${(s.readyMs / 1000).toFixed(1)} s later`,
    ),
  ].join("\n");
}
