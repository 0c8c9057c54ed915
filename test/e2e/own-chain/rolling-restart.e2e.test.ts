// The rolling-restart proof, short form, CI's (issue 29, item 4; the long form is
// test/bench/rolling-restart.ts, the figures in docs/RELIABILITY.md, "Rolling restart"). The fault
// proof's cluster (SHORT_FORM_COUNTS: two gateways, two actors processes, one of each other role,
// each its own process over a broker, a Cassandra node and an anvil chain of its own, so it runs in
// the off-chain lane) under a steady payer load, while every process is replaced one at a time as
// `kubectl rollout restart` does it: SIGTERM, the replacement started once the old one has exited,
// the next only once the new one's /ready is 200; then the same pass with kill -9. Counted: the
// payers' requests by how they ended, each consumer group's longest unserved partition, and
// afterwards every event, record, transfer and webhook.
import { it } from "vitest";
import { SHORT_FORM_COUNTS } from "../../support/fault-proof/cluster.ts";
import { expectCleanRoll } from "../../support/fault-proof/roll-expectations.ts";
import { describeReport, runFaultProof } from "../../support/fault-proof/run.ts";

it("every process replaced one at a time, with SIGTERM and then kill -9, under load: 0 cut, 0 lost, 0 doubled", async () => {
  const report = await runFaultProof({
    loadMs: 20_000,
    everyMs: 2_000,
    chaos: null,
    roll: ["SIGTERM", "SIGKILL"],
    counts: SHORT_FORM_COUNTS,
  });
  console.log(describeReport(report));
  expectCleanRoll(report, ["SIGTERM", "SIGKILL"]);
}, 600_000);
