// The many-process fault proof, short form (issue 20, item 4; the long form is
// test/bench/fault-proof.ts, its figures in docs/RELIABILITY.md). Two gateways, three actors
// processes, two executors, two webhooks workers, two projectors and an indexer, each its own
// process over a broker and a Cassandra node of this file's own (the shared ones are never
// touched), under a steady load of payers (session, USDC deposit on the source anvil chain, then a
// commit or a burner-signed refund; webhooks to a local HTTPS receiver) while a chaos loop kills a
// random process with kill -9 every few seconds and starts it again, and restarts the broker and
// the Cassandra node once each. Then every journal event, outbox record, executor result, on-chain
// transfer and webhook delivery is counted: nothing lost, nothing doubled, every session finished.
import { expect, it } from "vitest";
import { describeReport, runFaultProof } from "../support/fault-proof/run.ts";

it("kill -9 of random roles, and a broker and a Cassandra restart, under load: 0 lost, 0 doubled", async () => {
  const report = await runFaultProof({ loadMs: 30_000, everyMs: 2_000, chaos: { everyMs: 5_000 } });
  console.log(describeReport(report));
  // The chaos happened: processes were killed and both servers restarted.
  expect(report.chaos.filter((c) => c.includes("kafka kill"))).toHaveLength(1);
  expect(report.chaos.filter((c) => c.includes("cassandra kill"))).toHaveLength(1);
  expect(report.chaos.length).toBeGreaterThanOrEqual(5);
  // Every payer finished: settled (commit) or refunded, and the count found nothing lost or doubled.
  expect(report.flows.filter((f) => f.step !== "done").map((f) => `#${f.n} ${f.step}: ${f.error}`)).toEqual(
    [],
  );
  expect(report.flows.length).toBeGreaterThanOrEqual(12);
  expect(report.problems).toEqual([]);
  expect(report.figures.chainTransactions).toBe(report.flows.length);
  expect(report.figures.webhookDeliveries).toBeGreaterThanOrEqual(report.figures.webhookEvents ?? Number.NaN);
}, 900_000);
