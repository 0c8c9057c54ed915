import { expect } from "vitest";
import { type ProcessCounts, SHORT_FORM_COUNTS } from "./cluster.ts";
import type { RollSignal } from "./roll.ts";
import type { FaultProofReport } from "./run.ts";

/**
 * What a rolling restart must show, whatever its passes: every process replaced once a pass, each
 * SIGTERMed one stopping cleanly; under SIGTERM no request answered with a 5xx but a clean 503 and
 * none cut; every payer finished; nothing lost or doubled.
 */
export function expectCleanRoll(
  report: FaultProofReport,
  passes: readonly RollSignal[],
  counts: ProcessCounts = SHORT_FORM_COUNTS,
): void {
  const processes = Object.values(counts).reduce((a, b) => a + b, 0);
  const sigtermed = report.roll.filter((s) => s.signal === "SIGTERM");
  expect(sigtermed.map((s) => [s.name, s.exit])).toEqual(sigtermed.map((s) => [s.name, 0]));
  expect(report.roll).toHaveLength(passes.length * processes);
  const sigterm = report.requests.get("SIGTERM");
  expect(sigterm?.answered).toBeGreaterThan(0);
  expect([sigterm?.other5xx, sigterm?.unanswered]).toEqual([[], []]);
  expect(report.flows.filter((f) => f.step !== "done").map((f) => `#${f.n} ${f.step}: ${f.error}`)).toEqual(
    [],
  );
  expect(report.problems).toEqual([]);
  expect(report.figures.sessions).toBe(report.flows.length);
  expect(report.figures.chainTransactions).toBe(report.flows.length);
}
