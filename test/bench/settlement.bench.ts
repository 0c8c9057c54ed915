/**
 * Settlement end to end on the two local chains, through the payer's client library:
 *
 * 1. Throughput with instant mining: sessions settled per second (USDC on the source chain to the
 *    destination chain: deposit, detection, commit, type-4 sweep with the burn, attestation, relay of
 *    the mint), side by side in one run with the bare RPC round trips of the same transactions sent
 *    by a plain viem script (deposit, sweep, attestation fetch, receiveMessage), at the same
 *    concurrency. Ratio = service / bare.
 *    (Instant mining plus an empty block every 250 ms, so confirmation depth advances.)
 * 2. Latency with one-second blocks (the local stack's anvil setting), confirmation depth 1: deposit
 *    mined to `detected` on the session's SSE stream, and commit to `swept`, p50 and p99.
 *
 *   npx tsx test/bench/settlement.bench.ts [--sessions 24] [--concurrency 6] [--latency 12]
 *
 * Every role runs in this process (test/support/service.ts), against the local stack.
 */
import { parseArgs } from "node:util";
import { ensureChains } from "../../deploy/local/chains.ts";
import { withFileLock } from "./flock.ts";
import { bareSettlement, type Ctx, chainCtx, instantMining, latencyLine, pool } from "./settlement-chains.ts";
import { settleThroughService, startSettlementService } from "./settlement-session.ts";

const { values: args } = parseArgs({
  options: {
    sessions: { type: "string", default: "24" },
    concurrency: { type: "string", default: "6" },
    latency: { type: "string", default: "12" },
  },
});
const SESSIONS = Number(args.sessions);
const CONCURRENCY = Number(args.concurrency);
const LATENCY_RUNS = Number(args.latency);

await withFileLock(".local/run/bench.lock", async () => {
  const { chains } = await ensureChains({ root: ".local", log: () => undefined });
  const [src, dst] = chains.map(chainCtx) as [Ctx, Ctx];
  const { service, client } = await startSettlementService();
  const attesterUrl = service.stack.attester.url;
  const settle = () => settleThroughService(client, src, dst);
  let restore = [await instantMining(src), await instantMining(dst)];
  try {
    // Warm-up: one of each, so connections, JIT and the consumer groups are settled.
    await bareSettlement(src, dst, attesterUrl);
    await settle();

    console.log(`\n1. throughput, instant mining: ${SESSIONS} sessions, ${CONCURRENCY} at a time`);
    const bareMs = await pool(
      SESSIONS,
      CONCURRENCY,
      async () => void (await bareSettlement(src, dst, attesterUrl)),
    );
    const serviceMs = await pool(SESSIONS, CONCURRENCY, async () => void (await settle()));
    const bareRate = (SESSIONS * 1000) / bareMs;
    const serviceRate = (SESSIONS * 1000) / serviceMs;
    console.log(
      `   bare viem script : ${bareRate.toFixed(2)} settlements/s (${(bareMs / 1000).toFixed(1)} s)`,
    );
    console.log(
      `   the service      : ${serviceRate.toFixed(2)} sessions settled/s (${(serviceMs / 1000).toFixed(1)} s)`,
    );
    console.log(`   ratio            : ${(serviceRate / bareRate).toFixed(2)} (goal >= 0.5)`);

    console.log(`\n2. latency, one-second blocks: ${LATENCY_RUNS} sessions one after another`);
    for (const back of restore) await back();
    restore = [];
    const detection: number[] = [];
    const settlement: number[] = [];
    for (let i = 0; i < LATENCY_RUNS; i++) {
      const t = await settle();
      detection.push(t.detected - t.mined);
      settlement.push(t.swept - t.committed);
    }
    console.log(
      `   deposit mined -> detected on SSE : ${latencyLine(detection)} (goal: one block + 200 ms = 1200 ms)`,
    );
    console.log(`   commit -> swept                   : ${latencyLine(settlement)}`);
  } finally {
    for (const back of restore) await back().catch(() => undefined);
    await service.stop();
  }
});
