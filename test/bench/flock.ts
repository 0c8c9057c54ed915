import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, readFileSync, readlinkSync } from "node:fs";
import path from "node:path";

/**
 * Holds `flock <file>` while `fn` runs, like the shell's `flock <file> <command>`: the integration
 * suites take .local/run/suite.lock around their use of the shared topics, the benchmarks
 * .local/run/bench.lock around their measuring. flock keeps the lock while its child reads our pipe;
 * the pipe closes when we are done (or die), which ends the child and frees the lock. Run under
 * `flock <file> ...` already, it runs `fn` at once: taking the lock again would wait for ever.
 */
export async function withFileLock<T>(file: string, fn: () => Promise<T>): Promise<T> {
  const lock = path.resolve(file);
  if (heldByAncestor(lock)) return fn();
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

/** Whether a parent process (at any depth) is `flock <lock> <command>`, which holds the lock for us. */
function heldByAncestor(lock: string): boolean {
  let pid = process.ppid;
  while (pid > 1) {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      if (path.basename(argv[0] ?? "") === "flock") {
        const cwd = readlinkSync(`/proc/${pid}/cwd`);
        if (argv.slice(1).some((arg) => path.resolve(cwd, arg) === lock)) return true;
      }
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      pid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    } catch {
      return false; // no /proc, or the process is gone
    }
  }
  return false;
}
