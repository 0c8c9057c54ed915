import { execFile } from "node:child_process";
import { appendFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { LocalChain } from "../../../deploy/local/chains.ts";
import { chainsSetting, startPrivateChains } from "../../../deploy/local/private-chains.ts";
import { type Child, startChild } from "../child-process.ts";
import { startThrowawayServer, type ThrowawayServer } from "../throwaway-servers.ts";
import { bundleCli } from "./bundle.ts";

/**
 * The many-process service of the fault proof (issue 20, item 4): every role as its own processes,
 * several per role, over a Kafka broker and a Cassandra node of its own (throwaway-servers.ts), so
 * killing them never touches the servers other tests share, and an anvil chain of its own
 * (deploy/local/private-chains.ts), so its payers and relayer share no account's nonces with the
 * files that use the stack's chains, and it can run beside them.
 */

export type FaultRole = "gateway" | "actors" | "executor" | "webhooks" | "projector" | "indexer";

export type ProcessCounts = Record<FaultRole, number>;

/** How many processes of each role run: the counts; one indexer, which the chaos spares. */
export const PROCESS_COUNTS: ProcessCounts = {
  gateway: 2,
  actors: 3,
  executor: 2,
  webhooks: 2,
  projector: 2,
  indexer: 1,
};

/**
 * The short form's shape (test/e2e/own-chain/fault-proof.e2e.test.ts): two of the roles a payer's request or
 * a session's state moves between members of (gateways, actors), one of the others. Twelve
 * processes do not start within CI's budget on two cores (docs/RELIABILITY.md); the long form keeps
 * the shape.
 */
export const SHORT_FORM_COUNTS: ProcessCounts = {
  gateway: 2,
  actors: 2,
  executor: 1,
  webhooks: 1,
  projector: 1,
  indexer: 1,
};

/** Roles the chaos loop kills (the indexer is the one process it spares: see docs/RELIABILITY.md). */
export const KILLABLE: readonly FaultRole[] = ["gateway", "actors", "executor", "webhooks", "projector"];

export const OPERATOR_SECRET = `operator-${"f".repeat(40)}`;

export interface Proc {
  name: string;
  role: FaultRole;
  /** The running child; null while it is being (re)started. */
  child: Child | null;
  /** The gateway's URL once up. */
  url: string | null;
  kills: number;
  /** How long each restart after a kill took until the role said it was ready, ms. */
  restartsMs: number[];
  /** Its metrics port's URL (/ready, /live) once up. */
  metrics: string | null;
  /** Replacements that were not up in time and were started again. */
  failedStarts: string[];
}

/** One process's replacement: how long the old one took to exit (and with what), and the new one to be ready. */
export interface Replaced {
  stopMs: number;
  exit: number | string | null;
  readyMs: number;
}

export interface Cluster {
  env: Record<string, string>;
  /** The cluster's own chain: the payers' deposits, the sweeps and the refunds go there. */
  chain: LocalChain;
  /** Where every process's output is kept, a file per process name (`<name>.log`), for after the run. */
  logDir: string;
  procs: Proc[];
  /** URLs of the gateways up now. */
  gateways(): string[];
  /** kill -9 of the process, then its replacement started at once; resolves when it is ready. */
  killAndRestart(p: Proc): Promise<void>;
  /**
   * The rolling restart's step (issue 29, item 4): the process taken out of the gateways the load
   * uses (a balancer seeing its /ready 503), sent `signal`, and once it has exited its replacement
   * started; resolves once the replacement's /ready answers 200, with how long the step took.
   */
  replace(p: Proc, signal: "SIGTERM" | "SIGKILL"): Promise<Replaced>;
  /** kill -9 of the broker or the node, started again on the same data; resolves once it answers. */
  restartServer(which: "kafka" | "cassandra"): Promise<{ downMs: number }>;
  /** Stops every process, removes both servers and stops the chain. */
  stop(): Promise<void>;
}

/** The line each role prints once it is ready (src/app/cli.ts); a gateway's carries its URL. */
export const READY: Record<FaultRole, RegExp> = {
  gateway: /^gateway\s+listening on (http:\/\/\S+)/,
  actors: /^actors\s+(.*)$/,
  executor: /^executor\s+(.*)$/,
  webhooks: /^webhooks\s+(.*)$/,
  projector: /^projector\s+(.*)$/,
  indexer: /^indexer\s+(.*)$/,
};

const START_TIMEOUT_MS = 180_000;
/** The line a process prints once its metrics port serves (src/app/cli.ts). */
const METRICS_LINE = /^metrics\s+(http:\/\/\S+)\/metrics/;
const run = promisify(execFile);

export async function startCluster(
  log: (line: string) => void,
  opts: { env?: Record<string, string>; counts?: ProcessCounts } = {},
): Promise<Cluster> {
  const t0 = Date.now();
  const took = () => `${((Date.now() - t0) / 1000).toFixed(1)} s`;
  // Every process's output (and the chain's) is kept past the run: an unexplained result is read there.
  const logDir = mkdtempSync(join(tmpdir(), "fault-proof-logs-"));
  log(`processes' output in ${logDir}`);
  const [kafka, cassandra, cli, chains] = await Promise.all([
    startThrowawayServer("kafka"),
    startThrowawayServer("cassandra"),
    bundleCli(),
    startPrivateChains({ names: ["source"], logDir }),
  ]);
  const chain = chains.chains[0] as LocalChain;
  log(`servers and chain ${chain.chainId} (${chain.rpcUrl}) up, src/cli.ts bundled after ${took()}`);
  const raised = "1000000000";
  const env: Record<string, string> = {
    KAFKA_BROKERS: kafka.address,
    CASSANDRA_CONTACT_POINTS: cassandra.address,
    CASSANDRA_KEYSPACE: "fault_proof",
    // The chain of its own alone, as the stack's chains are given to a role (src/app/infra.ts).
    CHAINS: chainsSetting([chain]),
    MERCHANT_MODE: "development",
    OPERATOR_SECRET,
    WEBHOOK_ALLOW_INSECURE: "true",
    WEBHOOK_POLL_MS: "100",
    INDEXER_POLL_MS: "250",
    // FAULT_PROOF_LOG_LEVEL=info keeps every command and step in the processes' logs, for a hunt.
    LOG_LEVEL: process.env.FAULT_PROOF_LOG_LEVEL ?? "warn",
    PORT: "0",
    RATE_LIMIT_PER_SECOND: raised,
    RATE_LIMIT_BURST: raised,
    ...opts.env,
  };
  // Topics and schema once, before a dozen processes would each migrate at the same time.
  await run(process.execPath, [cli, "migrate"], { env: { ...process.env, ...env } });
  log(`topics and schema made after ${took()}`);
  const procs: Proc[] = [];
  for (const [role, n] of Object.entries(opts.counts ?? PROCESS_COUNTS) as Array<[FaultRole, number]>)
    for (let i = 1; i <= n; i++)
      procs.push({
        name: `${role}-${i}`,
        role,
        child: null,
        url: null,
        kills: 0,
        restartsMs: [],
        metrics: null,
        failedStarts: [],
      });
  let stopping = false;
  const starting = new Set<Child>();

  const start = async (p: Proc) => {
    let launched: Child | undefined;
    const child = await startChild(p.name, [cli, p.role], {
      env,
      tsx: false,
      ready: READY[p.role],
      timeoutMs: START_TIMEOUT_MS,
      // The metrics line comes after the ready line, so it is taken whenever it comes.
      onLine: (line) => {
        appendFileSync(join(logDir, `${p.name}.log`), `${new Date().toISOString()} ${line}\n`);
        const metrics = METRICS_LINE.exec(line)?.[1];
        if (metrics) p.metrics = metrics;
      },
      started: (c) => {
        launched = c;
        starting.add(c);
      },
    }).catch(async (err: unknown) => {
      // A process that is not up in time is stopped, not left running beside its replacement.
      await launched?.stop();
      throw err;
    });
    if (stopping) {
      await child.stop();
      return;
    }
    p.child = child;
    p.url = p.role === "gateway" ? child.ready : null;
  };
  /** Until the process's /ready answers 200 (its metrics line comes just after its ready line). */
  const readyProbe = async (p: Proc) => {
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      const url = p.metrics;
      const ok = url
        ? await fetch(`${url}/ready`).then(
            (r) => r.ok,
            () => false,
          )
        : false;
      if (ok) return;
      if (Date.now() > deadline) throw new Error(`${p.name}: /ready not 200 after ${START_TIMEOUT_MS} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  /**
   * A process that does not come up (started while the broker was down, or on a machine this
   * loaded) is counted and started again, up to `tries` starts: what matters is that the role comes
   * back. false when it did not (or the cluster is stopping).
   */
  const startAgainUntilUp = async (p: Proc, tries: number): Promise<boolean> => {
    for (let n = 1; ; n++) {
      try {
        await start(p);
        return true;
      } catch (err) {
        // The first line says which way it failed, the child's last words (not a stack frame) why.
        const lines = (err instanceof Error ? err.message : String(err)).split("\n");
        const why = lines.findLast((l) => l.trim() && !/^\s+at /.test(l));
        p.failedStarts.push([...new Set([lines[0], why])].join(" ... ").slice(0, 300));
        if (stopping || n >= tries) return false;
        // A process that cannot start (its broker or node is down) is not started in a tight loop.
        await new Promise((r) => setTimeout(r, 2000));
      }
    }
  };
  try {
    // All at once: the journal is empty, so no actors process has anything to restore twice.
    await Promise.all(
      procs.map(async (p) => {
        if (!(await startAgainUntilUp(p, 3)))
          throw new Error(`${p.name} did not start: ${p.failedStarts.at(-1)}`);
      }),
    );
  } catch (err) {
    // A start that failed leaves no process and no server behind (they would outlive the test).
    stopping = true;
    await Promise.allSettled([...starting].map((c) => c.stop()));
    await Promise.allSettled([kafka.remove(), cassandra.remove(), chains.stop()]);
    throw err;
  }
  log(
    `cluster up after ${took()}: ${procs.map((p) => p.name).join(", ")}; kafka ${kafka.address}, cassandra ${cassandra.address}`,
  );

  const servers: Record<"kafka" | "cassandra", ThrowawayServer> = { kafka, cassandra };
  return {
    env,
    chain,
    logDir,
    procs,
    gateways: () => procs.flatMap((p) => (p.role === "gateway" && p.child && p.url ? [p.url] : [])),
    async killAndRestart(p) {
      const child = p.child;
      if (!child) return;
      p.child = null;
      p.url = null;
      process.kill(child.pid, "SIGKILL");
      p.kills++;
      const t0 = Date.now();
      if (!(await startAgainUntilUp(p, Number.POSITIVE_INFINITY))) return;
      p.restartsMs.push(Date.now() - t0);
    },
    async replace(p, signal) {
      const child = p.child;
      if (!child) return { stopMs: 0, exit: null, readyMs: 0 };
      p.child = null;
      p.url = null;
      p.metrics = null;
      const t0 = Date.now();
      process.kill(child.pid, signal);
      while (child.exited() === null) await new Promise((r) => setTimeout(r, 50));
      const stopMs = Date.now() - t0;
      const exit = child.exited();
      if (!(await startAgainUntilUp(p, Number.POSITIVE_INFINITY))) return { stopMs, exit, readyMs: 0 };
      await readyProbe(p);
      return { stopMs, exit, readyMs: Date.now() - t0 - stopMs };
    },
    async restartServer(which) {
      const t0 = Date.now();
      await servers[which].kill();
      await servers[which].start();
      return { downMs: Date.now() - t0 };
    },
    async stop() {
      stopping = true;
      await Promise.all([...starting].map((c) => c.stop()));
      await Promise.all([kafka.remove(), cassandra.remove(), chains.stop()]);
    },
  };
}
