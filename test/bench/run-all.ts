/**
 * `npm run bench`: every test/bench/*.bench.ts in turn, each in its own process (one at a time: on a
 * small machine two benchmarks would measure each other), with its default arguments. Prints what
 * each prints; exits non-zero if any of them failed.
 */
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";

const dir = fileURLToPath(new URL(".", import.meta.url));
const benches = readdirSync(dir)
  .filter((f) => f.endsWith(".bench.ts"))
  .sort();

console.log(`${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), node ${process.version}`);
const failed: string[] = [];
for (const file of benches) {
  console.log(`\n=== ${file}`);
  const t0 = performance.now();
  const code = await new Promise<number>((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", `${dir}${file}`], { stdio: "inherit" });
    child.on("exit", (c, signal) => resolve(c ?? (signal ? 1 : 0)));
  });
  console.log(
    `=== ${file}: ${code === 0 ? "done" : `failed (exit ${code})`} in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
  );
  if (code !== 0) failed.push(file);
}
if (failed.length > 0) {
  console.log(`\nfailed: ${failed.join(", ")}`);
  process.exit(1);
}
