/**
 * POST /sessions through the whole service against the least a gateway must do, side by side in one
 * run. Prints figures; asserts nothing.
 *
 * Ours is the service as deployed, one process per role (`src/cli.ts actors`, `projector`,
 * `gateway`; see service-roles.ts): a 2xx means the owning actor committed the session and the
 * projector made it readable on every gateway. The baseline (bare-post-sessions.ts, its own process)
 * validates with the same schemas, checks the signatures with the same functions and sends the same
 * encoded command with one idempotent produce (acks=all) per request, to a scratch topic with as
 * many partitions as session.commands: on session.commands itself the actors would take up the
 * baseline's commands while it is measured, and its figures would carry our costs.
 *
 * Each round runs autocannon at `connections` and at 1 connection (where p50 is the commit latency
 * a lone client sees), baseline and ours alternately, which goes first alternating round by round.
 * Every body has its own burner; ours never sends one twice while the pool lasts (the baseline cycles
 * it). Each run adds every POST of ours to the shared journal.
 *
 * Holds .local/run/bench.lock and then .local/run/suite.lock (the roles join the shared groups).
 *
 *   npx tsx test/bench/post-sessions.bench.ts [seconds=10] [rounds=3] [connections=50] [posts=60000]
 *   PROJECTOR_NODE_ARGS="--cpu-prof --cpu-prof-dir=.local/profiles" npx tsx test/bench/post-sessions.bench.ts
 */
import { execFileSync } from "node:child_process";
import { cpus, loadavg } from "node:os";
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
}

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
  const roles = await startRoles(startChild);
  const bareArgs = {
    brokers: infra.brokers,
    topic: SCRATCH_TOPIC,
    chains: evmChainsOf(infra.chains).map((c) => ({ chainId: c.chainId, delegate: c.delegate })),
  };
  const bare = await startChild(
    "bare",
    ["test/bench/bare-post-sessions.ts", JSON.stringify(bareArgs)],
    {},
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
  const watched = [...children, ...stackPids(config)];
  const measure = async (target: Target, conns: number, duration: number): Promise<Run> => {
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
    return {
      rate: result.requests.average,
      mean: result.latency.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      bad: result.non2xx + result.errors + result.timeouts,
      load: loadavg()[0] ?? 0,
      cores: coresUsed(cpu0, cpuSnapshot(watched), result.duration),
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
        if (marks) console.log(`           stages: ${await stagesSince(kafka, marks)}`);
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
      console.log(
        `${String(conns).padStart(2)} conn ${target}  ${fmtRate(m((r) => r.rate)).padStart(6)} req/s  mean ${ms(m((r) => r.mean))}  p50 ${ms(m((r) => r.p50))}  p99 ${ms(m((r) => r.p99))}  not 2xx or failed ${runs.reduce((n, r) => n + r.bad, 0)}`,
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

function ms(x: number): string {
  return `${x.toFixed(1).padStart(6)} ms`;
}
function since(t0: number): string {
  return ((performance.now() - t0) / 1000).toFixed(1);
}
