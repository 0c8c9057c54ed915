import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";

/** A child node process (a role of `src/cli.ts`, a baseline server) that said it was up. */
export interface Child {
  name: string;
  pid: number;
  /** What the ready line captured: the listen URL of a server, the summary of a role. */
  ready: string;
  /** null while it runs; then its exit code, or the signal that ended it. */
  exited(): number | string | null;
  stop(): Promise<void>;
}

/**
 * Children's group sessions are 10 s, above the config's 3 s default on purpose: the machines that
 * run these tests are two shared cores at load averages of 5-25, where a child starting up next to
 * seven others, or waiting on a restarting throwaway broker, can miss heartbeats for seconds, and a
 * 3 s session risks evicting live members: rebalances the test did not cause. 10 s
 * still keeps a kill -9's handover short for the tests that wait on it; the 3 s takeover itself is
 * measured on the default (test/bench/restore-time.ts; docs/RELIABILITY.md). Their metrics port is
 * one the system picks: a gateway's default (9464) would be taken by the first of two gateways.
 */
export const CHILD_ENV = { KAFKA_SESSION_TIMEOUT_MS: "10000", METRICS_PORT: "0" };

/**
 * `node --import tsx <args>` (node options first) as a child, so its pid is the process itself;
 * resolves once a stdout line matches `ready` (its first group becomes `ready`), and rejects with
 * the output's tail if the child exits first or is not up after `timeoutMs`. `started` sees the
 * child as soon as it exists, so a caller can stop one that is still starting. `tsx: false` runs
 * plain JavaScript (a bundle) without the loader.
 */
export async function startChild(
  name: string,
  args: string[],
  opts: {
    env?: Record<string, string>;
    ready: RegExp;
    timeoutMs: number;
    started?: (c: Child) => void;
    tsx?: boolean;
    /** Sees every line the child writes, stdout and stderr alike (its logs, for a test that reads them). */
    onLine?: (line: string) => void;
  },
): Promise<Child> {
  const loader = opts.tsx === false ? [] : ["--import", "tsx"];
  const proc: ChildProcess = spawn(process.execPath, [...loader, ...args], {
    env: { ...process.env, ...CHILD_ENV, ...opts.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  const child: Child = {
    name,
    pid: proc.pid ?? -1,
    ready: "",
    exited: () => proc.exitCode ?? proc.signalCode,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill("SIGTERM");
      const timer = setTimeout(() => proc.kill("SIGKILL"), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
  opts.started?.(child);
  // Kept to explain a failed start; the pipes are read to the end so a chatty child never blocks.
  const tail: string[] = [];
  const keep = (line: string) => {
    opts.onLine?.(line);
    tail.push(line);
    if (tail.length > 30) tail.shift();
  };
  createInterface({ input: proc.stderr as NodeJS.ReadableStream }).on("line", keep);
  child.ready = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${name} not up after ${opts.timeoutMs / 1000} s:\n${tail.join("\n")}`)),
      opts.timeoutMs,
    );
    createInterface({ input: proc.stdout as NodeJS.ReadableStream }).on("line", (line) => {
      keep(line);
      const m = opts.ready.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve(m[1] ?? "");
      }
    });
    exited.then(() => {
      clearTimeout(timer);
      reject(
        new Error(
          `${name} exited (${proc.exitCode ?? proc.signalCode}) before it was up:\n${tail.join("\n")}`,
        ),
      );
    });
  });
  return child;
}
