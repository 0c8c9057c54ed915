/**
 * Settlement latency against its floor (issue 19 item 7), at the local stack's one-second blocks:
 *
 * - the service: commit -> `swept` on the session's SSE stream, for a same-chain session (the sweep
 *   pays the destination directly) and a cross-chain one (burn, attestation, relay of the mint), each
 *   step located by the timestamps of the session's events on the journal;
 * - the floor, side by side in the same run: the same transactions sent by a plain viem script, the
 *   attester asked every 20 ms (so the cross-chain floor is the chain's blocks and the attester's own
 *   time, not a poll's spacing).
 *
 *   npx tsx test/bench/settlement-latency.bench.ts [--runs 10]
 *
 * Every role runs in this process (test/support/service.ts), against the local stack.
 */
import { parseArgs } from "node:util";
import { ensureChains } from "../../deploy/local/chains.ts";
import { readTopic } from "../../src/kafka/topic-reader.ts";
import { stableEndOffsets } from "../../src/kafka/topics.ts";
import { TOPIC } from "../../topics/catalogue.ts";
import { codecs } from "../support/codecs.ts";
import type { TestService } from "../support/service.ts";
import { withFileLock } from "./flock.ts";
import { bareSettlement, type Ctx, chainCtx, latencyLine } from "./settlement-chains.ts";
import { settleThroughService, startSettlementService } from "./settlement-session.ts";

const { values: args } = parseArgs({ options: { runs: { type: "string", default: "10" } } });
const RUNS = Number(args.runs);

/** The events whose journal times split commit -> swept into its steps. */
const STEPS = ["IntentCommitted", "SweepSubmitted", "SweepCompleted", "BridgeCompleted"] as const;
type Step = (typeof STEPS)[number];

/** Per session: when (unix ms, the producer's send time) each step's event went onto the journal. */
async function stepTimes(service: TestService, from: Map<number, bigint>) {
  const times = new Map<string, Partial<Record<Step, number>>>();
  await readTopic(service.kafka, {
    topic: TOPIC.sessionEvents,
    from,
    onBatch: (records) => {
      for (const r of records) {
        if (!r.value || !r.key || r.timestamp === undefined) continue;
        const type = codecs.sessionEvent.decodeTrusted(r.value).type;
        if (!(STEPS as readonly string[]).includes(type)) continue;
        const seen = times.get(r.key.toString()) ?? {};
        seen[type as Step] ??= r.timestamp;
        times.set(r.key.toString(), seen);
      }
    },
  });
  return times;
}

const fmt = (xs: number[]) => (xs.length === 0 ? "-" : latencyLine(xs).padEnd(28));

await withFileLock(".local/run/bench.lock", async () => {
  const { chains } = await ensureChains({ root: ".local", log: () => undefined });
  const [src, dst] = chains.map(chainCtx) as [Ctx, Ctx];
  const { service, client } = await startSettlementService();
  const attesterUrl = service.stack.attester.url;
  const settle = (to: Ctx) => settleThroughService(client, src, to);

  try {
    await settle(src); // warm-up: connections, JIT, the consumer groups
    await bareSettlement(src, dst, attesterUrl, "tight");
    const from = await stableEndOffsets(service.kafka, TOPIC.sessionEvents);
    const runs: { same: Awaited<ReturnType<typeof settle>>; cross: Awaited<ReturnType<typeof settle>> }[] =
      [];
    const floor = { same: [] as number[], cross: [] as number[], attester: [] as number[] };
    for (let i = 0; i < RUNS; i++) {
      runs.push({ same: await settle(src), cross: await settle(dst) });
      const same = await bareSettlement(src, src, attesterUrl);
      floor.same.push(same.swept - same.sent);
      const cross = await bareSettlement(src, dst, attesterUrl, "tight");
      floor.cross.push((cross.relayed ?? Number.NaN) - cross.sent);
      floor.attester.push((cross.attested ?? Number.NaN) - cross.swept);
    }
    const times = await stepTimes(service, from);
    const span = (kind: "same" | "cross", a: Step | "committed", b: Step | "swept") =>
      runs.flatMap(({ [kind]: r }) => {
        const t = times.get(r.id) ?? {};
        const at = (s: Step | "committed" | "swept") =>
          s === "committed" ? r.committed : s === "swept" ? r.swept : t[s];
        const [x, y] = [at(a), at(b)];
        return x === undefined || y === undefined ? [] : [y - x];
      });

    console.log(`\nsettlement latency, one-second blocks, ${RUNS} runs of each`);
    console.log(
      `  same chain : the service, commit -> swept on SSE : ${fmt(span("same", "committed", "swept"))}`,
    );
    console.log(`               floor, sweep sent -> mined           : ${fmt(floor.same)}`);
    console.log(
      `  cross chain: the service, commit -> swept on SSE : ${fmt(span("cross", "committed", "swept"))}`,
    );
    console.log(`               floor, sweep sent -> mint mined      : ${fmt(floor.cross)}`);
    console.log(`               of which the attester's own time     : ${fmt(floor.attester)}`);
    console.log("\nthe service's steps (journal times; commit and swept as the payer saw them)");
    for (const kind of ["same", "cross"] as const) {
      console.log(`  ${kind === "same" ? "same chain" : "cross chain"}`);
      const marks = [
        "committed",
        ...STEPS.filter((x) => kind === "cross" || x !== "BridgeCompleted"),
        "swept",
      ] as const;
      for (let i = 1; i < marks.length; i++) {
        const [from, to] = [marks[i - 1], marks[i]] as [Step | "committed", Step | "swept"];
        const label = `${from === "committed" ? "commit" : from} -> ${to === "swept" ? "swept on SSE" : to}`;
        console.log(`    ${label.padEnd(36)}: ${fmt(span(kind, from, to))}`);
      }
    }
  } finally {
    await service.stop();
  }
});
