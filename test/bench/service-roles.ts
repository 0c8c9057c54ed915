/**
 * What the gateway benchmarks share: the service's roles started as deployed (one process each), the
 * signed POST /sessions bodies they send, and the CPU time of every process, read from /proc.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { stackRoot } from "../../src/app/infra.ts";
import type { Config } from "../../src/config.ts";
import { type KafkaClient, kafkajs } from "../../src/kafka/client.ts";
import { type Child, startChild } from "../support/child-process.ts";
import { newBurner, sessionBody } from "../support/payer.ts";
import { withFileLock } from "./flock.ts";

/** High enough that no bucket ever empties during a run. */
export const RATE_LIMIT_RAISED = "1000000000";
/**
 * Every request of autocannon comes from 127.0.0.1, which the default rate limit (5/s, burst 60)
 * would answer with 429s; at the default `info` fastify writes two log lines per request.
 */
export const ROLE_ENV = {
  LOG_LEVEL: "warn",
  PORT: "0",
  RATE_LIMIT_PER_SECOND: RATE_LIMIT_RAISED,
  RATE_LIMIT_BURST: RATE_LIMIT_RAISED,
};

export type StartChild = (
  name: string,
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
) => Promise<Child>;

/** A role that is not up after this long (the actors restore the whole journal) fails the run. */
const START_TIMEOUT_MS = 300_000;

/**
 * Runs `fn` holding .local/run/bench.lock (benchmarks must not measure each other on a small machine)
 * and then .local/run/suite.lock (the roles join the shared "actors" and "projector" groups, like the
 * integration suites). Every child `fn` starts through `start` is stopped when it ends, and on SIGINT
 * or SIGTERM, even while it is still starting.
 */
export async function withRoleProcesses(
  fn: (start: StartChild, children: readonly Child[]) => Promise<void>,
): Promise<void> {
  const children: Child[] = [];
  let interrupted = false;
  const stopChildren = () => Promise.all(children.map((c) => c.stop()));
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      interrupted = true;
      console.log(`\n${signal}: stopping the roles`);
      stopChildren().finally(() => process.exit(130));
    });
  }
  const start: StartChild = (name, args, env, ready) =>
    startChild(name, args, { env, ready, timeoutMs: START_TIMEOUT_MS, started: (c) => children.push(c) });
  try {
    await withFileLock(".local/run/bench.lock", () =>
      withFileLock(".local/run/suite.lock", () => fn(start, children)),
    );
  } catch (err) {
    // Stopped roles fail the run's requests: that is the interruption, not an error to report.
    if (!interrupted) throw err;
  } finally {
    await stopChildren();
  }
}

/**
 * The actors, the projector and then the gateway (`src/cli.ts <role>`), each up once it printed its
 * ready line. `<ROLE>_NODE_ARGS` in the environment (ACTORS_, PROJECTOR_, GATEWAY_) are node options
 * for that role alone, e.g. "--cpu-prof --cpu-prof-dir=.local/profiles" to profile it; `extra` gives
 * every role more node options and environment.
 */
export async function startRoles(
  start: StartChild,
  extra: { nodeArgs?: string[]; env?: Record<string, string> } = {},
): Promise<{ actors: Child; projector: Child; gateway: Child }> {
  const role = (name: string, ready: RegExp) =>
    start(
      name,
      [...(extra.nodeArgs ?? []), ...nodeArgsOf(name), "src/cli.ts", name],
      { ...ROLE_ENV, ...extra.env },
      ready,
    );
  const [actors, projector] = await Promise.all([
    role("actors", /^actors\s+(.*)$/),
    role("projector", /^projector\s+(.*)$/),
  ]);
  const gateway = await role("gateway", /^gateway\s+listening on (http:\/\/\S+)/);
  return { actors, projector, gateway };
}

/**
 * Waits until each group has one member, ours: a member left behind by a killed run (or another
 * test) keeps half the partitions until its session times out (30 s), and commands to them would
 * wait for the rebalance. Answers the groups that still have others after `timeoutMs`.
 */
export async function untilSoleMembers(kafka: KafkaClient, groups: string[], timeoutMs = 60_000) {
  const admin = kafkajs(kafka).admin();
  await admin.connect();
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { groups: found } = await admin.describeGroups(groups);
      const shared = found
        .filter((g) => g.state !== "Stable" || g.members.length !== 1)
        .map((g) => g.groupId);
      if (shared.length === 0 || Date.now() >= deadline) return shared;
      await new Promise((r) => setTimeout(r, 500));
    }
  } finally {
    await admin.disconnect();
  }
}

const nodeArgsOf = (role: string): string[] =>
  process.env[`${role.toUpperCase()}_NODE_ARGS`]?.split(" ").filter(Boolean) ?? [];

/**
 * `n` distinct POST /sessions bodies, each with its own burner and an EIP-7702 authorization signed
 * for the first chain, settling to the second (a cross-chain payer). ~1 ms each.
 */
export async function signedBodies(
  n: number,
  chains: ReadonlyArray<{ chainId: number; delegate: `0x${string}` }>,
): Promise<string[]> {
  const source = chains[0];
  if (!source) throw new Error("no EVM chain configured: POST /sessions needs one");
  const burnerChain = { chainId: source.chainId, delegate: source.delegate };
  const destination = { chainId: (chains[1] ?? source).chainId };
  const bodies: string[] = [];
  for (let i = 0; i < n; i++)
    bodies.push(JSON.stringify(sessionBody(await newBurner(burnerChain), destination)));
  return bodies;
}

const TICKS_PER_SECOND = Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100;

/** The stack's own servers, when this machine runs them: their CPU share explains ours. */
export function stackPids(config: Config): Array<{ name: string; pid: number }> {
  return pidsOf(config, ["cassandra", "kafka"]);
}

/**
 * The local stack's other processes, which cost CPU when nothing is asked of them (the two anvil
 * chains mine a block every second, the Solana node produces slots, the attester and the provider
 * servers poll): watched so that a bench can tell their idle cost from the cost of its requests.
 */
export function idleStackPids(config: Config): Array<{ name: string; pid: number }> {
  return pidsOf(config, [
    "anvil-source",
    "anvil-destination",
    "solana",
    "attester",
    "provider-alchemy",
    "provider-jupiter",
    "provider-zeroex",
  ]);
}

function pidsOf(config: Config, names: readonly string[]): Array<{ name: string; pid: number }> {
  const found: Array<{ name: string; pid: number }> = [];
  for (const name of names) {
    // A broker of one's own (KAFKA_BROKERS naming it) is watched through BENCH_KAFKA_ROOT, its root.
    const root = name === "kafka" ? (process.env.BENCH_KAFKA_ROOT ?? stackRoot(config)) : stackRoot(config);
    try {
      const pid = Number(readFileSync(path.join(root, "run", `${name}.pid`), "utf8").trim());
      if (pid > 0 && procCpuTicks(pid) !== null) found.push({ name, pid });
    } catch {
      // Servers named in the environment run elsewhere.
    }
  }
  return found;
}

/** utime + stime of a process in clock ticks, or null when it is gone. */
function procCpuTicks(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

/** CPU seconds so far of each process, and of this one (autocannon) as "bench". */
export function cpuSnapshot(procs: Array<{ name: string; pid: number }>): Map<string, number> {
  const snapshot = new Map<string, number>();
  for (const p of procs) {
    const ticks = procCpuTicks(p.pid);
    if (ticks !== null) snapshot.set(p.name, ticks / TICKS_PER_SECOND);
  }
  const own = process.cpuUsage();
  snapshot.set("bench", (own.user + own.system) / 1e6);
  return snapshot;
}

/** Cores each process used between two snapshots `seconds` apart. */
export function coresUsed(before: Map<string, number>, after: Map<string, number>, seconds: number) {
  const cores = new Map<string, number>();
  for (const [name, used] of after) cores.set(name, (used - (before.get(name) ?? 0)) / seconds);
  return cores;
}

/** "gateway 0.93, kafka 0.41, ...": the processes that used at least 0.05 of a core, busiest first. */
export function describeCores(cores: Map<string, number>): string {
  return [...cores]
    .filter(([, c]) => c >= 0.05)
    .sort((a, b) => b[1] - a[1])
    .map(([name, c]) => `${name} ${c.toFixed(2)}`)
    .join(", ");
}
