/**
 * Where a role process's start goes (docs/RELIABILITY.md, "Where the start-up goes"): each role
 * started alone against the environment's servers, once as `node --import tsx src/cli.ts <role>`
 * and once from the fault proof's bundle (test/support/fault-proof/bundle.ts), with the wall time
 * to its ready line and the CPU seconds the process had used by then (/proc/<pid>/stat).
 *
 *   source .env-test && npx tsx test/bench/role-start-cpu.ts [actors,gateway,executor,webhooks,projector]
 */
import { readFileSync } from "node:fs";
import { startChild } from "../support/child-process.ts";
import { bundleCli } from "../support/fault-proof/bundle.ts";
import { READY } from "../support/fault-proof/cluster.ts";

const TICKS_PER_SECOND = 100;
/** utime + stime of a process, s (fields 14 and 15 of /proc/<pid>/stat, after the name). */
function cpuSeconds(pid: number): number {
  const fields = (readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1] ?? "").split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

const roles = (process.argv[2] ?? "actors,gateway,executor,webhooks,projector").split(",") as Array<
  keyof typeof READY
>;
const cli = await bundleCli();
const env = { LOG_LEVEL: "warn", PORT: "0", MERCHANT_MODE: "development", OPERATOR_SECRET: "x".repeat(40) };
for (const role of roles)
  for (const tsx of [true, false]) {
    const t = Date.now();
    const child = await startChild(role, tsx ? ["src/cli.ts", role] : [cli, role], {
      env,
      ready: READY[role],
      timeoutMs: 300_000,
      tsx,
    });
    const cpu = cpuSeconds(child.pid);
    console.log(
      `${role} ${tsx ? "tsx   " : "bundle"}: ready after ${((Date.now() - t) / 1000).toFixed(1)} s, ${cpu.toFixed(2)} s CPU`,
    );
    await child.stop();
  }
process.exit(0);
