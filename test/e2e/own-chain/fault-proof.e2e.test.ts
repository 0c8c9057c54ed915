// The many-process fault proof, short form (issue 20, item 4; the long form is
// test/bench/fault-proof.ts, its figures in docs/RELIABILITY.md). Two gateways, two actors
// processes, an executor, a webhooks worker, a projector and an indexer (SHORT_FORM_COUNTS: the
// issue's twelve do not start within CI's budget; the long form runs them), each its own
// process (src/cli.ts bundled once: test/support/fault-proof/bundle.ts) over a broker, a Cassandra
// node and an anvil chain of this file's own (the shared ones are never touched, so it runs in the
// off-chain lane), under a steady load of payers (session, USDC deposit on that chain, then a
// commit or a burner-signed refund;
// webhooks to a local HTTPS receiver) while a chaos loop kills a random process with kill -9 every
// few seconds and starts it again, and kills and restarts the broker and then the Cassandra node
// once each. Then every journal event, outbox record, executor result, on-chain transfer and webhook
// delivery is counted: nothing lost, nothing doubled, every session finished. That the count can
// fail is test/unit/fault-proof-audit.unit.test.ts.
import { expect, it } from "vitest";
import { SHORT_FORM_COUNTS } from "../../support/fault-proof/cluster.ts";
import { describeReport, runFaultProof } from "../../support/fault-proof/run.ts";

it("kill -9 of random roles, and a broker and a Cassandra restart, under load: 0 lost, 0 doubled", async () => {
  const report = await runFaultProof({
    loadMs: 40_000,
    everyMs: 2_000,
    chaos: { everyMs: 5_000 },
    counts: SHORT_FORM_COUNTS,
  });
  console.log(describeReport(report));
  // The chaos happened: processes were killed and both servers restarted.
  expect(report.chaos.filter((c) => c.startsWith("kafka kill"))).toHaveLength(1);
  expect(report.chaos.filter((c) => c.startsWith("cassandra kill"))).toHaveLength(1);
  expect(
    report.chaos.filter((c) => / kill -9 at /.test(c) && /^\w+-\d /.test(c)).length,
  ).toBeGreaterThanOrEqual(5);
  // Every payer finished: settled (commit) or refunded, and the count found nothing lost or doubled.
  expect(report.flows.filter((f) => f.step !== "done").map((f) => `#${f.n} ${f.step}: ${f.error}`)).toEqual(
    [],
  );
  expect(report.flows.length).toBeGreaterThanOrEqual(12);
  expect(report.problems).toEqual([]);
  expect(report.figures.sessions).toBe(report.flows.length);
  expect(report.figures.chainTransactions).toBe(report.flows.length);
  expect(report.figures.webhookDeliveries).toBeGreaterThanOrEqual(report.figures.webhookEvents ?? Number.NaN);
}, 600_000);
