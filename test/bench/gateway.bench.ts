/**
 * Gateway throughput: GET /sessions/:id and POST /sessions of the real service under autocannon,
 * against a bare fastify app (bare-fastify.ts) on the same machine, run by run alternately. Prints
 * figures; asserts nothing.
 *
 * Ours is the service as deployed, one process per role (`src/cli.ts actors`, `projector`,
 * `gateway`) on the local stack, with LOG_LEVEL=warn and the per-IP rate limit raised through
 * RATE_LIMIT_PER_SECOND and RATE_LIMIT_BURST: all of autocannon's requests come from 127.0.0.1,
 * which the default (5/s, burst 60) would answer with 429s. GET spreads over `sessions` sessions
 * created first through POST /sessions and projected; POST sends distinct bodies, each with its own
 * burner and a signed EIP-7702 authorization, all made before anything is timed. The baseline gets
 * the same autocannon load: same connections, same pipelining, same rotation of ids and bodies.
 * RSS and CPU time of every process are read from /proc throughout.
 *
 * The whole run holds .local/run/bench.lock (benchmarks must not measure each other on a small
 * machine; under `flock .local/run/bench.lock ...` it uses that one) and .local/run/suite.lock (the
 * roles join the shared "actors" and "projector" groups, like the integration suites). Each run adds
 * `sessions` plus the POSTs it sends as new sessions to the shared journal. The roles inherit the
 * environment: SESSION_CACHE_TTL_MS=0 measures GET without the gateway's cache.
 *
 *   npx tsx test/bench/gateway.bench.ts [seconds=10] [rounds=3] [connections=50] [sessions=1000] [posts=20000]
 *   GATEWAY_NODE_ARGS="--cpu-prof --cpu-prof-dir=.local/profiles" npx tsx test/bench/gateway.bench.ts
 *   BENCH_KINDS=POST npx tsx test/bench/gateway.bench.ts 10 3 1   # POST only, one connection
 */

import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import autocannon from "autocannon";
import { ensureStack } from "../../deploy/local/stack.ts";
import { resolveInfra } from "../../src/app/infra.ts";
import { evmChainsOf } from "../../src/chains/config.ts";
import { parseConfig } from "../../src/config.ts";
import { createKafka } from "../../src/kafka/client.ts";
import { recordsBefore, stableEndOffsets, waitForGroupCaughtUp } from "../../src/kafka/topics.ts";
import { PROJECTOR_GROUP } from "../../src/projections/projector.ts";
import { TOPIC } from "../../topics/catalogue.ts";
import type { Child } from "../support/child-process.ts";
import { eachConcurrently } from "../support/concurrently.ts";
import {
  coresUsed,
  cpuSnapshot,
  describeCores,
  RATE_LIMIT_RAISED,
  type StartChild,
  signedBodies,
  stackPids,
  startRoles,
  withRoleProcesses,
} from "./service-roles.ts";
import { fmtRate, median } from "./workload.ts";

const [seconds = 10, rounds = 3, connections = 50, sessionCount = 1_000, postCount = 20_000] = process.argv
  .slice(2)
  .map(Number);
const WARM_UP_SECONDS = 3;
const SAMPLE_EVERY_MS = 200;

const config = parseConfig({ ...process.env, LOG_LEVEL: "warn" });
const infra = await resolveInfra(config, { ensureStack });
const kafka = createKafka({ brokers: infra.brokers, clientId: "bench.gateway" });

type Target = "ours" | "bare";
type Kind = "GET" | "POST";
/** The kinds to measure (BENCH_KINDS=POST skips GET); both by default. */
const KINDS = (["GET", "POST"] as const).filter((k) => (process.env.BENCH_KINDS ?? "GET,POST").includes(k));

interface Run {
  rate: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  statusCodes: string;
  /** Cores used during the run, per process. */
  cpu: Map<string, number>;
}

console.log(
  `node ${process.version}, ${cpus().length} cores; autocannon with ${connections} connections, pipelining 1, ${seconds} s per run, ${rounds} rounds after a ${WARM_UP_SECONDS} s warm-up`,
);
console.log(
  `rate limit raised for the gateway: RATE_LIMIT_PER_SECOND=${RATE_LIMIT_RAISED} RATE_LIMIT_BURST=${RATE_LIMIT_RAISED} (defaults 5 and 60); roles log at warn`,
);

await withRoleProcesses(run);

async function run(startChild: StartChild, children: readonly Child[]): Promise<void> {
  const journal = recordsBefore(await stableEndOffsets(kafka, TOPIC.sessionEvents));
  console.log(`session.events holds ${journal.toLocaleString("en")} records before this run`);

  let t0 = performance.now();
  const seedBodies = await signedBodies(sessionCount, evmChainsOf(infra.chains));
  // Signed only when POST is measured: 1 ms or more per signature.
  const postBodies = KINDS.includes("POST") ? await signedBodies(postCount, evmChainsOf(infra.chains)) : [];
  console.log(
    `signed ${(sessionCount + postCount).toLocaleString("en")} burner authorizations in ${since(t0)} s`,
  );

  t0 = performance.now();
  const { actors, projector, gateway } = await startRoles(startChild);
  console.log(`roles up in ${since(t0)} s:`);
  for (const c of [actors, projector, gateway])
    console.log(`  ${c.name.padEnd(10)} pid ${c.pid}  ${c.ready}`);

  t0 = performance.now();
  const ourIds = await createSessions(gateway.ready, seedBodies);
  const caughtUp = await waitForGroupCaughtUp(kafka, {
    groupId: PROJECTOR_GROUP,
    topic: TOPIC.sessionEvents,
    timeoutMs: 120_000,
  });
  const unreadable = await untilReadable(gateway.ready, ourIds);
  console.log(
    `created ${ourIds.length.toLocaleString("en")} sessions through the gateway, projected${caughtUp ? "" : " (projector NOT caught up)"} and readable${unreadable ? ` (${unreadable} NOT readable)` : ""} in ${since(t0)} s`,
  );

  // The baseline serves a real GET response of ours, so both send bodies of the same size.
  const template = await (await fetch(`${gateway.ready}/sessions/${ourIds[0]}`)).text();
  const bareIds = ourIds.map(() => randomUUID());
  const bareSessions = path.join(mkdtempSync(path.join(tmpdir(), "bench-gateway-")), "sessions.json");
  writeFileSync(bareSessions, JSON.stringify({ template: JSON.parse(template), ids: bareIds }));
  const bare = await startChild(
    "bare",
    ["test/bench/bare-fastify.ts", bareSessions],
    {},
    /^bare listening on (http:\/\/\S+)/,
  );
  rmSync(path.dirname(bareSessions), { recursive: true });
  console.log(`bare fastify pid ${bare.pid} at ${bare.ready}; Session body ${template.length} bytes`);

  const stack = stackPids(config);
  const sampler = startSampler([actors, projector, gateway, bare]);
  const urls: Record<Target, string> = { ours: gateway.ready, bare: bare.ready };
  const ids: Record<Target, string[]> = { ours: ourIds, bare: bareIds };
  // Where each target is in its ids (GET) or the bodies (POST). Ours must never send a body twice
  // (a burner per session); the baseline may cycle the pool.
  const cursor: Record<Target, number> = { ours: 0, bare: 0 };
  const measure = async (target: Target, kind: Kind, duration: number): Promise<Run> => {
    const watched = [...children, ...stack];
    const cpu0 = cpuSnapshot(watched);
    sampler.phase(`${kind} ${target}`);
    const result = await autocannon({
      url: urls[target],
      connections,
      pipelining: 1,
      duration,
      requests: [
        kind === "GET"
          ? {
              method: "GET",
              setupRequest: (req) => {
                const list = ids[target];
                const id = list[cursor[target]++ % list.length];
                return { ...req, path: `/sessions/${id}` };
              },
            }
          : {
              method: "POST",
              headers: { "content-type": "application/json" },
              setupRequest: (req) => ({
                ...req,
                path: "/sessions",
                body: postBodies[cursor[target]++ % postBodies.length],
              }),
            },
      ],
    });
    sampler.phase(null);
    const cpu1 = cpuSnapshot(watched);
    const cores = coresUsed(cpu0, cpu1, result.duration);
    return {
      rate: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      non2xx: result.non2xx,
      errors: result.errors + result.timeouts,
      statusCodes: Object.entries(result.statusCodeStats ?? {})
        .map(([code, s]) => `${code}: ${s.count ?? 0}`)
        .join(", "),
      cpu: cores,
    };
  };

  sampler.phase("before load");
  await sleep(3_000);
  sampler.phase(null);

  const results: Record<`${Kind} ${Target}`, Run[]> = {
    "GET ours": [],
    "GET bare": [],
    "POST ours": [],
    "POST bare": [],
  };
  for (const kind of KINDS) {
    if (kind === "POST") cursor.ours = cursor.bare = 0;
    console.log(`\n${kind} ${kind === "GET" ? "/sessions/:id" : "/sessions"}`);
    for (let round = 0; round <= rounds; round++) {
      // Alternate which goes first, so a drift of the machine does not always favour one.
      const order: Target[] = round % 2 === 0 ? ["bare", "ours"] : ["ours", "bare"];
      for (const target of order) {
        const r = await measure(target, kind, round === 0 ? WARM_UP_SECONDS : seconds);
        console.log(`${(round === 0 ? "warm-up" : `round ${round}`).padEnd(8)} ${target}  ${describe(r)}`);
        if (round > 0) results[`${kind} ${target}`].push(r);
      }
    }
    if (kind === "POST" && cursor.ours > postBodies.length)
      console.log(`  (ours sent ${cursor.ours} POSTs: bodies were reused, burners repeat)`);
  }
  sampler.stop();

  console.log("\nsummary (median of the rounds)");
  for (const kind of KINDS) {
    const [ours, bareRuns] = [results[`${kind} ours`], results[`${kind} bare`]];
    const m = (runs: Run[], f: (r: Run) => number) => median(runs.map(f));
    for (const [label, runs] of [
      ["ours", ours],
      ["bare", bareRuns],
    ] as const) {
      const non2xx = runs.reduce((n, r) => n + r.non2xx, 0);
      const errors = runs.reduce((n, r) => n + r.errors, 0);
      console.log(
        `${kind.padEnd(4)} ${label}  ${fmtRate(m(runs, (r) => r.rate)).padStart(7)} req/s  p50 ${ms(m(runs, (r) => r.p50))}  p99 ${ms(m(runs, (r) => r.p99))}  non-2xx ${non2xx}  errors ${errors}`,
      );
    }
    const ratio = m(ours, (r) => r.rate) / m(bareRuns, (r) => r.rate);
    console.log(`${kind.padEnd(4)} ratio ${ratio.toFixed(2)}${kind === "GET" ? " (goal >= 0.50)" : ""}`);
  }

  console.log("\nRSS (MiB): before load | under GET median, peak | under POST median, peak");
  for (const c of [gateway, actors, projector, bare]) {
    const target: Target = c === bare ? "bare" : "ours";
    const cell = (phase: string) => {
      const xs = sampler.rss(phase, c.name);
      return xs.length === 0 ? "-" : `${mib(median(xs))}, ${mib(Math.max(...xs))}`;
    };
    const before = sampler.rss("before load", c.name);
    console.log(
      `  ${c.name.padEnd(10)} ${(before.length ? mib(median(before)) : "-").padStart(5)} | ${cell(`GET ${target}`).padStart(11)} | ${cell(`POST ${target}`).padStart(11)}`,
    );
  }
}

function describe(r: Run): string {
  const cpu = describeCores(r.cpu);
  const bad = r.non2xx + r.errors > 0 ? `  non-2xx ${r.non2xx} errors ${r.errors} (${r.statusCodes})` : "";
  return `${fmtRate(r.rate).padStart(7)} req/s  p50 ${ms(r.p50)}  p99 ${ms(r.p99)}  cores: ${cpu}${bad}`;
}

function ms(x: number): string {
  return `${x.toFixed(1).padStart(6)} ms`;
}
function mib(kb: number): string {
  return (kb / 1024).toFixed(0);
}
function since(t0: number): string {
  return ((performance.now() - t0) / 1000).toFixed(1);
}

/** POSTs every body (a few at a time) and returns the ids of the sessions created. */
async function createSessions(base: string, bodies: string[]): Promise<string[]> {
  const created: string[] = [];
  await eachConcurrently(bodies, 16, async (body) => {
    const res = await fetch(`${base}/sessions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`POST ${base}/sessions: ${res.status} ${text}`);
    created.push((JSON.parse(text) as { id: string }).id);
  });
  return created;
}

/** GETs every id until all answer 200 (at most a minute); returns how many never did. */
async function untilReadable(base: string, ids: string[]): Promise<number> {
  let pending = ids;
  const deadline = Date.now() + 60_000;
  while (pending.length > 0 && Date.now() < deadline) {
    const missing: string[] = [];
    await eachConcurrently(pending, 16, async (id) => {
      const res = await fetch(`${base}/sessions/${id}`);
      await res.arrayBuffer();
      if (res.status !== 200) missing.push(id);
    });
    pending = missing;
    if (pending.length > 0) await sleep(500);
  }
  return pending.length;
}

function procRssKb(pid: number): number | null {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/** RSS of each process every SAMPLE_EVERY_MS while a phase is set, kept per phase. */
function startSampler(procs: Child[]) {
  const samples = new Map<string, number[]>();
  let current: string | null = null;
  const timer = setInterval(() => {
    if (current === null) return;
    for (const p of procs) {
      const kb = procRssKb(p.pid);
      if (kb === null) continue;
      const key = `${current}\n${p.name}`;
      const list = samples.get(key);
      if (list) list.push(kb);
      else samples.set(key, [kb]);
    }
  }, SAMPLE_EVERY_MS);
  return {
    phase(name: string | null) {
      current = name;
    },
    rss: (phase: string, name: string): number[] => samples.get(`${phase}\n${name}`) ?? [],
    stop: () => clearInterval(timer),
  };
}
