import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";

/**
 * Holds `flock <file>` while `fn` runs, like the shell's `flock <file> <command>`: the integration
 * suites take .local/run/suite.lock around their use of the shared topics, the benchmarks
 * .local/run/bench.lock around their measuring. flock keeps the lock while its child reads our pipe;
 * the pipe closes when we are done (or die), which ends the child and frees the lock.
 */
export async function withFileLock<T>(file: string, fn: () => Promise<T>): Promise<T> {
  const lock = path.resolve(file);
  mkdirSync(path.dirname(lock), { recursive: true });
  const child: ChildProcess = spawn("flock", [lock, "sh", "-c", "echo locked; cat >/dev/null"], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const t0 = performance.now();
  await new Promise<void>((resolve, reject) => {
    child.stdout?.once("data", () => resolve());
    child.once("exit", (code) => reject(new Error(`flock ${lock} exited with ${code}`)));
    child.once("error", reject);
  });
  const waited = performance.now() - t0;
  if (waited > 1000) console.log(`  (waited ${(waited / 1000).toFixed(1)} s for ${file})`);
  try {
    return await fn();
  } finally {
    child.stdin?.end();
  }
}
