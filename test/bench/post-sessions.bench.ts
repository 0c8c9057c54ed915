/**
 * POST /sessions through the whole service against the least a gateway must do, side by side in one
 * run. Prints figures; asserts nothing.
 *
 * Ours is the service as deployed, one process per role (`src/cli.ts actors`, `projector`,
 * `gateway`; see service-roles.ts): a 2xx means the owning actor committed the session and its state
 * on session.state, where every gateway finds it (the projector writes Cassandra off the path). The baseline (bare-post-sessions.ts, its own process)
 * validates with the same schemas, checks the signatures with the same functions and sends the same
 * encoded command with one idempotent produce (acks=all) per request, to a scratch topic with as
 * many partitions as session.commands: on session.commands itself the actors would take up the
 * baseline's commands while it is measured, and its figures would carry our costs.
 *
 * Each round runs autocannon at `connections` and at 1 connection (where p50 is the commit latency
 * a lone client sees), baseline and ours alternately, which goes first alternating round by round.
 * Every body has its own burner; ours never sends one twice while the pool lasts (the baseline cycles
 * it). Each run adds every POST of ours to the shared journal. Every child counts the Kafka requests
 * it sends (kafka-request-count.ts); each run prints them and the CPU time per POST by process (the
 * target's processes and the Kafka and Cassandra servers), gross and net of what each burns idle
 * (measured over IDLE_SECONDS before the rounds, with the anvil chains, the Solana node and the
 * stack's other servers, which share the cores), and ours the events per actor transaction.
 * With a broker of one's own in KAFKA_BROKERS, BENCH_KAFKA_ROOT names its root (its run/kafka.pid).
 *
 * Holds .local/run/bench.lock and then .local/run/suite.lock (the roles join the shared groups).
 *
 *   npx tsx test/bench/post-sessions.bench.ts [seconds=10] [rounds=3] [connections=50] [posts=60000]
 *   PROJECTOR_NODE_ARGS="--cpu-prof --cpu-prof-dir=.local/profiles" npx tsx test/bench/post-sessions.bench.ts
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { ensureStack } from "../../deploy/local/stack.ts";
import { resolveInfra } from "../../src/app/infra.ts";
import { evmChainsOf } from "../../src/chains/config.ts";
import { parseConfig } from "../../src/config.ts";
import { ACTORS_GROUP } from "../../src/entities/session.ts";
import { createKafka } from "../../src/kafka/client.ts";
import { ensureTopics, recordsBefore, stableEndOffsets } from "../../src/kafka/topics.ts";
import { PROJECTOR_GROUP } from "../../src/projections/projector.ts";
import { TOPIC } from "../../topics/catalogue.ts";
import type { Child } from "../support/child-process.ts";
import {
  coresUsed,
  cpuSnapshot,
  describeCores,
  idleStackPids,
  type StartChild,
  signedBodies,
  stackPids,
  startRoles,
  untilSoleMembers,
  withRoleProcesses,
} from "./service-roles.ts";
import { markEnds, stagesSince } from "./stage-times.ts";
import { fmtRate, median } from "./workload.ts";

const [seconds = 10, rounds = 3, connections = 50, postCount = 60_000] = process.argv.slice(2).map(Number);
const WARM_UP_SECONDS = 3;
/** The quiet window before the rounds in which each process's idle CPU is measured. */
const IDLE_SECONDS = 5;
const SCRATCH_TOPIC = "bench.post-sessions.commands";

const config = parseConfig({ ...process.env, LOG_LEVEL: "warn" });
const infra = await resolveInfra(config, { ensureStack });
const kafka = createKafka({ brokers: infra.brokers, clientId: "bench.post-sessions" });

type Target = "ours" | "bare";
interface Run {
  rate: number;
  mean: number;
  p50: number;
  p99: number;
  bad: number;
  load: number;
  cores: Map<string, number>;
  /** Kafka requests per POST sent by the target's processes, by process. */
  kafkaPerPost: Map<string, number>;
  /** CPU milliseconds per POST, by process (the Kafka and Cassandra servers too). */
  cpuPerPost: Map<string, number>;
  /** The same, less what each process burns idle (idleCores, measured before the rounds). */
  netCpuPerPost: Map<string, number>;
  /** Of the actors' transactions in this run (ours only). */
  eventsPerTransaction?: number;
}

/**
 * Every child counts the Kafka requests it sends (kafka-request-count.ts, loaded with --import) into
 * a file of this folder named by its pid.
 */
const COUNTS_DIR = mkdtempSync(path.join(tmpdir(), "post-sessions-kafka-"));
const COUNTING = {
  nodeArgs: ["--import", "./test/bench/kafka-request-count.ts"],
  env: {
    KAFKA_REQUEST_COUNTS_DIR: COUNTS_DIR,
    KAFKA_REQUEST_PORTS: infra.brokers.map((b) => b.slice(b.lastIndexOf(":") + 1)).join(","),
  },
};

/** A child's Kafka requests so far, all APIs together (0 before its first write). */
function kafkaRequests(pid: number): number {
  try {
    const counts = JSON.parse(readFileSync(path.join(COUNTS_DIR, `${pid}.json`), "utf8")) as Record<
      string,
      number
    >;
    return Object.values(counts).reduce((a, b) => a + b, 0);
  } catch {
    return 0;
  }
}

/** Kafka requests files are written every 100 ms: wait for one more write before reading. */
const settleCounts = () => new Promise((r) => setTimeout(r, 250));

const git = (...args: string[]) =>
  execFileSync("git", args, { stdio: ["ignore", "pipe", "ignore"] })
    .toString()
    .trim();
try {
  const changed = git("status", "--short", "--", "src").split("\n").filter(Boolean).length;
  console.log(`commit ${git("log", "-1", "--format=%h")}; uncommitted changes under src/: ${changed} files`);
} catch {
  console.log("not a git checkout: no commit to name"); // e.g. a copy of an older tree, for an A/B run
}
console.log(
  `node ${process.version}, ${cpus().length} cores, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(
      " ",
    )}; ${seconds} s per run, ${rounds} rounds after a ${WARM_UP_SECONDS} s warm-up, ${connections} and 1 connections`,
);

// The roles read these from the same environment: the settings an A/B run switches (issue 30 item 3).
console.log(
  `settings: ACTOR_COMMIT_LINGER_MS ${config.ACTOR_COMMIT_LINGER_MS}, ACTOR_COMMIT_LINGER_MAX_MS ${config.ACTOR_COMMIT_LINGER_MAX_MS}, PROJECTOR_BATCH_BYTES ${config.PROJECTOR_BATCH_BYTES}, PROJECTOR_FETCH_WAIT_MS ${config.PROJECTOR_FETCH_WAIT_MS}`,
);

await withRoleProcesses(run);

async function run(startChild: StartChild, children: readonly Child[]): Promise<void> {
  const partitions = (await stableEndOffsets(kafka, TOPIC.sessionCommands)).size;
  // An hour is enough for a run; the topic must not grow the broker's disk run after run.
  await ensureTopics(kafka, [
    { name: SCRATCH_TOPIC, partitions, cleanupPolicy: "delete", retentionMs: 3_600_000 },
  ]);
  const journal = recordsBefore(await stableEndOffsets(kafka, TOPIC.sessionEvents));
  console.log(`session.events holds ${journal.toLocaleString("en")} records before this run`);

  let t0 = performance.now();
  const bodies = await signedBodies(postCount, evmChainsOf(infra.chains));
  console.log(`signed ${postCount.toLocaleString("en")} burner authorizations in ${since(t0)} s`);

  t0 = performance.now();
  const roles = await startRoles(startChild, COUNTING);
  const bareArgs = {
    brokers: infra.brokers,
    topic: SCRATCH_TOPIC,
    chains: evmChainsOf(infra.chains).map((c) => ({ chainId: c.chainId, delegate: c.delegate })),
  };
  const bare = await startChild(
    "bare",
    [...COUNTING.nodeArgs, "test/bench/bare-post-sessions.ts", JSON.stringify(bareArgs)],
    COUNTING.env,
    /^bare listening on (http:\/\/\S+)/,
  );
  console.log(`roles and baseline up in ${since(t0)} s:`);
  for (const c of [...Object.values(roles), bare])
    console.log(`  ${c.name.padEnd(10)} pid ${c.pid}  ${c.ready}`);

  const shared = await untilSoleMembers(kafka, [ACTORS_GROUP, PROJECTOR_GROUP]);
  if (shared.length > 0)
    console.log(`  (groups ${shared.join(", ")} still have other members: figures are suspect)`);
  const urls: Record<Target, string> = { ours: roles.gateway.ready, bare: bare.ready };
  const cursor: Record<Target, number> = { ours: 0, bare: 0 };
  const watched = [...children, ...stackPids(config), ...idleStackPids(config)];
  // What every process burns with no request at all (the chains mine, the groups heartbeat): CPU
  // per POST is given gross and net of it, since on this machine the idle stack shares the 2 cores.
  const idle0 = cpuSnapshot(watched);
  await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
  const idleCores = coresUsed(idle0, cpuSnapshot(watched), IDLE_SECONDS);
  idleCores.delete("bench");
  const idleTotal = [...idleCores.values()].reduce((a, b) => a + b, 0);
  console.log(`idle for ${IDLE_SECONDS} s: ${idleTotal.toFixed(2)} cores (${describeCores(idleCores)})`);
  const counted: Record<Target, Child[]> = { ours: Object.values(roles), bare: [bare] };
  const measure = async (target: Target, conns: number, duration: number): Promise<Run> => {
    await settleCounts();
    const requests0 = new Map(counted[target].map((c) => [c.name, kafkaRequests(c.pid)]));
    const cpu0 = cpuSnapshot(watched);
    const result = await autocannon({
      url: urls[target],
      connections: conns,
      pipelining: 1,
      duration,
      requests: [
        {
          method: "POST",
          headers: { "content-type": "application/json" },
          setupRequest: (req) => ({
            ...req,
            path: "/sessions",
            body: bodies[cursor[target]++ % bodies.length],
          }),
        },
      ],
    });
    const cores = coresUsed(cpu0, cpuSnapshot(watched), result.duration);
    const posts = Math.max(1, result.requests.total);
    await settleCounts();
    const kafkaPerPost = new Map(
      counted[target].map((c) => [c.name, (kafkaRequests(c.pid) - (requests0.get(c.name) ?? 0)) / posts]),
    );
    // The target's own processes and the servers they use; the other target idles meanwhile.
    const mine = new Set([...counted[target].map((c) => c.name), "kafka", "cassandra"]);
    const cpuPerPost = new Map(
      [...cores]
        .filter(([name]) => mine.has(name))
        .map(([name, c]) => [name, (c * result.duration * 1000) / posts]),
    );
    const netCpuPerPost = new Map(
      [...cpuPerPost].map(([name, msPerPost]) => [
        name,
        Math.max(0, msPerPost - ((idleCores.get(name) ?? 0) * result.duration * 1000) / posts),
      ]),
    );
    return {
      netCpuPerPost,
      rate: result.requests.average,
      mean: result.latency.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      bad: result.non2xx + result.errors + result.timeouts,
      load: loadavg()[0] ?? 0,
      cores,
      kafkaPerPost,
      cpuPerPost,
    };
  };

  const results = new Map<string, Run[]>();
  for (let round = 0; round <= rounds; round++) {
    const order: Target[] = round % 2 === 0 ? ["bare", "ours"] : ["ours", "bare"];
    for (const conns of [connections, 1]) {
      for (const target of order) {
        const marks = target === "ours" && round > 0 ? await markEnds(kafka) : null;
        const r = await measure(target, conns, round === 0 ? WARM_UP_SECONDS : seconds);
        console.log(
          `${(round === 0 ? "warm-up" : `round ${round}`).padEnd(8)} ${String(conns).padStart(2)} conn ${target}  ${fmtRate(r.rate).padStart(6)} req/s  mean ${ms(r.mean)}  p50 ${ms(r.p50)}  p99 ${ms(r.p99)}  load ${r.load.toFixed(1)}  cores: ${describeCores(r.cores)}${r.bad ? `  NOT 2xx or failed: ${r.bad}` : ""}`,
        );
        console.log(
          `           Kafka requests per POST ${perPost(r.kafkaPerPost, 1)}; CPU ms per POST ${perPost(r.cpuPerPost, 2)}; net of idle ${perPost(r.netCpuPerPost, 2)}`,
        );
        if (marks) {
          const stages = await stagesSince(kafka, marks);
          r.eventsPerTransaction = stages.eventsPerTransaction;
          console.log(`           stages: ${stages.text}`);
        }
        if (round > 0) results.set(`${target} ${conns}`, [...(results.get(`${target} ${conns}`) ?? []), r]);
      }
    }
  }
  if (cursor.ours > bodies.length)
    console.log(`(ours sent ${cursor.ours} POSTs: bodies were reused, burners repeat)`);

  console.log("\nsummary (median of the rounds)");
  const rateOf = new Map<string, number>();
  for (const conns of [connections, 1]) {
    for (const target of ["bare", "ours"] as const) {
      const runs = results.get(`${target} ${conns}`) ?? [];
      const m = (f: (r: Run) => number) => median(runs.map(f));
      rateOf.set(
        `${target} ${conns}`,
        m((r) => r.rate),
      );
      const kafkaTotal = (r: Run) => [...r.kafkaPerPost.values()].reduce((a, b) => a + b, 0);
      const cpuOf = (r: Run) => [...r.cpuPerPost.values()].reduce((a, b) => a + b, 0);
      const netCpuOf = (r: Run) => [...r.netCpuPerPost.values()].reduce((a, b) => a + b, 0);
      const events = runs.flatMap((r) =>
        r.eventsPerTransaction === undefined ? [] : [r.eventsPerTransaction],
      );
      console.log(
        `${String(conns).padStart(2)} conn ${target}  ${fmtRate(m((r) => r.rate)).padStart(6)} req/s  mean ${ms(m((r) => r.mean))}  p50 ${ms(m((r) => r.p50))}  p99 ${ms(m((r) => r.p99))}  Kafka requests/POST ${m(kafkaTotal).toFixed(1)}  CPU ms/POST ${m(cpuOf).toFixed(2)} (net of idle ${m(netCpuOf).toFixed(2)})${events.length > 0 ? `  events/transaction ${median(events).toFixed(1)}` : ""}  load ${m((r) => r.load).toFixed(1)}  not 2xx or failed ${runs.reduce((n, r) => n + r.bad, 0)}`,
      );
      console.log(
        `           CPU ms/POST by process ${perPost(
          medianBy(runs, (r) => r.cpuPerPost),
          2,
        )}; net of idle ${perPost(
          medianBy(runs, (r) => r.netCpuPerPost),
          2,
        )}`,
      );
    }
    const ratio = (rateOf.get(`ours ${conns}`) ?? 0) / (rateOf.get(`bare ${conns}`) ?? 1);
    console.log(`${String(conns).padStart(2)} conn ratio ours/bare ${ratio.toFixed(2)}`);
  }
  console.log(
    `load average at the end ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
}

/** Each process's median over the runs (0 in a run where it does not appear). */
function medianBy(runs: readonly Run[], of: (r: Run) => Map<string, number>): Map<string, number> {
  const names = new Set(runs.flatMap((r) => [...of(r).keys()]));
  return new Map([...names].map((name) => [name, median(runs.map((r) => of(r).get(name) ?? 0))]));
}

/** "total (gateway 2.1, actors 4.0, ...)", busiest first. */
function perPost(by: Map<string, number>, digits: number): string {
  const parts = [...by].filter(([, v]) => v > 0).sort((a, b) => b[1] - a[1]);
  const total = parts.reduce((a, [, v]) => a + v, 0);
  return `${total.toFixed(digits)} (${parts.map(([name, v]) => `${name} ${v.toFixed(digits)}`).join(", ")})`;
}

function ms(x: number): string {
  return `${x.toFixed(1).padStart(6)} ms`;
}
function since(t0: number): string {
  return ((performance.now() - t0) / 1000).toFixed(1);
}
