/**
 * The long form of the many-process fault proof (docs/RELIABILITY.md), run by hand. Its cluster has
 * its own broker, Cassandra node and anvil chain, so it needs no lock and no stack; the lock below
 * only keeps its figures apart from other runs on a shared machine:
 *
 *   flock /tmp/chain-tests.lock npx tsx test/bench/fault-proof.ts 600             # 10 minutes of chaos
 *   flock /tmp/chain-tests.lock npx tsx test/bench/fault-proof.ts 600 --no-chaos  # the same load alone
 *
 * Arguments: the load window in seconds (default 600), then --no-chaos, --every-ms=N (a new payer
 * every N ms, default 1500) and --kill-every-ms=N (default 5000). Exits 1 when anything was lost
 * or doubled, or a session did not finish.
 */
import { parseArgs } from "node:util";
import { describeReport, runFaultProof } from "../support/fault-proof/run.ts";

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      "no-chaos": { type: "boolean", default: false },
      "every-ms": { type: "string", default: "1500" },
      "kill-every-ms": { type: "string", default: "5000" },
    },
  });
  const seconds = Number(positionals[0] ?? 600);
  if (!(seconds > 0)) throw new Error(`usage: fault-proof.ts <seconds> [--no-chaos]; got ${positionals[0]}`);
  const report = await runFaultProof({
    loadMs: seconds * 1000,
    everyMs: Number(values["every-ms"]),
    chaos: values["no-chaos"] ? null : { everyMs: Number(values["kill-every-ms"]) },
  });
  console.log(describeReport(report));
  const unfinished = report.flows.filter((f) => f.step !== "done").length;
  process.exit(report.problems.length === 0 && unfinished === 0 ? 0 : 1);
}
main();
