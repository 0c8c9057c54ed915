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
import type { Address } from "viem";
import { ensureChains } from "../../deploy/local/chains.ts";
import { testUsdcAbi } from "../../src/chains/evm/abi.ts";
import {
  commit,
  createApiClient,
  createSession,
  newBurner as newPayerBurner,
  signIntent,
  waitForDetection,
  waitForStatus,
} from "../../src/client/index.ts";
import { startTestService } from "../support/service.ts";
import { withFileLock } from "./flock.ts";
import {
  AMOUNT,
  bareSettlement,
  type Ctx,
  chainCtx,
  instantMining,
  minedAt,
  percentile,
  pool,
} from "./settlement-chains.ts";

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
  const service = await startTestService({
    roles: ["actors", "projector", "indexer", "executor", "gateway"],
    // Detection is measured at confirmation depth 1 (the goal); the indexer polls every 100 ms.
    env: { INDEXER_POLL_MS: "100", LOCAL_CONFIRMATIONS: "1", LOG_LEVEL: "warn" },
  });
  const attesterUrl = service.stack.attester.url;
  const client = createApiClient({ baseUrl: service.url });
  /** One session through the client library's actions; the times of each step, ms. */
  const settle = async () => {
    const burner = await newPayerBurner(src.chain);
    const destination = { address: dst.chain.funded.address as Address, chainId: dst.chain.chainId };
    const { id } = await createSession(client, { burner, destination });
    const detection = waitForDetection(client, { id, timeout: 120_000 });
    const depositHash = await src.funded.writeContract({
      address: src.chain.usdc,
      abi: testUsdcAbi,
      functionName: "transfer",
      args: [burner.address, AMOUNT],
    });
    const mined = await minedAt(src, depositHash);
    const detected = await detection;
    const detectedAt = performance.now();
    const signed = await signIntent({ signer: burner.account, session: detected, quote: null, destination });
    const committedAt = performance.now();
    await commit(client, { id, burner, signed });
    const settled = await waitForStatus(client, { id, status: "swept", timeout: 300_000 });
    if (settled.outcome !== "succeeded") throw new Error(`session ${id} swept with ${settled.outcome}`);
    return { mined, detected: detectedAt, committed: committedAt, swept: performance.now() };
  };
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
    const fmt = (xs: number[]) =>
      `p50 ${percentile(xs, 50).toFixed(0)} ms, p99 ${percentile(xs, 99).toFixed(0)} ms`;
    console.log(
      `   deposit mined -> detected on SSE : ${fmt(detection)} (goal: one block + 200 ms = 1200 ms)`,
    );
    console.log(`   commit -> swept                   : ${fmt(settlement)}`);
  } finally {
    for (const back of restore) await back().catch(() => undefined);
    await service.stop();
  }
});
