// The rolling restart with SIGTERM alone, CI's form (issue 29, item 4): the short form's cluster
// (two gateways, two actors processes, one of each other role, over a broker, a Cassandra node and
// an anvil chain of its own, so it runs in the off-chain lane) under a steady payer load, every
// process replaced once with SIGTERM the way `kubectl rollout restart` goes, the next only once the
// new one's /ready is 200. No request may be cut or answered with a 5xx other than a clean 503, no
// payer left unfinished, nothing lost or doubled. The kill -9 pass is
// test/chaos/rolling-restart.chaos.test.ts's.
import { it } from "vitest";
import { SHORT_FORM_COUNTS } from "../../support/fault-proof/cluster.ts";
import { expectCleanRoll } from "../../support/fault-proof/roll-expectations.ts";
import { describeReport, runFaultProof } from "../../support/fault-proof/run.ts";

it("every process replaced once with SIGTERM under load: 0 5xx, 0 cut, 0 lost, 0 doubled", async () => {
  const report = await runFaultProof({
    // The load runs until the roll is done; this is only its floor.
    loadMs: 10_000,
    everyMs: 2_000,
    chaos: null,
    roll: ["SIGTERM"],
    counts: SHORT_FORM_COUNTS,
  });
  console.log(describeReport(report));
  expectCleanRoll(report, ["SIGTERM"]);
}, 600_000);
