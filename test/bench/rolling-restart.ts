/**
 * The rolling-restart proof, long form (issue 29, item 4; docs/RELIABILITY.md, "Rolling restart"),
 * run by hand (its cluster has its own broker, Cassandra node and chain; the lock only keeps the
 * figures apart from other runs on a shared machine): the twelve processes
 * under a steady payer load, every one replaced one at a time with SIGTERM and then with kill -9,
 * and then the same load for as long without a roll, for the figures side by side.
 *
 *   flock /tmp/chain-tests.lock npx tsx test/bench/rolling-restart.ts
 *
 * Options: --every-ms=N (a new payer every N ms, default 1500), --no-baseline (the roll alone),
 * --baseline-only --baseline-seconds=N (the same load alone for N s), --short (the short form's
 * eight processes instead of the twelve). Exits 1 when anything was lost or doubled, a
 * session did not finish, or a request under SIGTERM was cut or answered with a 5xx other than a
 * clean 503.
 */
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { SHORT_FORM_COUNTS } from "../support/fault-proof/cluster.ts";
import { describeReport, type FaultProofReport, runFaultProof } from "../support/fault-proof/run.ts";

async function main() {
  const { values } = parseArgs({
    options: {
      "every-ms": { type: "string", default: "1500" },
      "no-baseline": { type: "boolean", default: false },
      "baseline-only": { type: "boolean", default: false },
      "baseline-seconds": { type: "string" },
      short: { type: "boolean", default: false },
    },
  });
  const everyMs = Number(values["every-ms"]);
  const counts = values.short ? { counts: SHORT_FORM_COUNTS } : {};
  const say = (title: string, r: FaultProofReport) =>
    console.log(`--- ${title} (load average now ${loadavg()[0]?.toFixed(2)})\n${describeReport(r)}`);
  let rolled: FaultProofReport | null = null;
  let windowMs = Number(values["baseline-seconds"] ?? 0) * 1000;
  if (!values["baseline-only"]) {
    const t0 = Date.now();
    rolled = await runFaultProof({
      loadMs: 60_000,
      everyMs,
      chaos: null,
      roll: ["SIGTERM", "SIGKILL"],
      ...counts,
    });
    // The roll's load window: about the run less the cluster's start-up and the count after it.
    windowMs = Date.now() - t0 - 90_000;
    say("with the roll", rolled);
  }
  let baseline: FaultProofReport | null = null;
  if (!values["no-baseline"]) {
    baseline = await runFaultProof({ loadMs: Math.max(60_000, windowMs), everyMs, chaos: null, ...counts });
    say("the same load, no roll", baseline);
  }
  const unfinished = (r: FaultProofReport | null) => r?.flows.filter((f) => f.step !== "done").length ?? 0;
  const sigterm = rolled?.requests.get("SIGTERM");
  const cut = (sigterm?.other5xx.length ?? 0) + (sigterm?.unanswered.length ?? 0);
  // A baseline that did not finish is no baseline: it fails the run as a roll would.
  const problems = (rolled?.problems.length ?? 0) + (baseline?.problems.length ?? 0);
  process.exit(problems === 0 && unfinished(rolled) + unfinished(baseline) === 0 && cut === 0 ? 0 : 1);
}
main();
