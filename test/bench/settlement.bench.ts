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
import { type Address, createPublicClient, createWalletClient, type Hex, http, zeroAddress } from "viem";
import { generatePrivateKey, nonceManager, privateKeyToAccount } from "viem/accounts";
import { ensureChains, type LocalChain, toViemChain } from "../../deploy/local/chains.ts";
import { burnerDelegateAbi, messageTransmitterV2Abi, testUsdcAbi } from "../../src/chains/evm/abi.ts";
import { fetchAttestation } from "../../src/chains/evm/settle/attestation.ts";
import { domainFor, intentTypes } from "../../src/chains/evm/typed-data/eip712.ts";
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
const AMOUNT = 5_000_000n; // 5 USDC per session
const PLATFORM_FEE_BPS = 80n;

/** Runs `n` jobs, `concurrency` at a time; answers the wall time in ms. */
async function pool(n: number, concurrency: number, job: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  const worker = async () => {
    while (next < n) await job(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
  return performance.now() - t0;
}

const percentile = (xs: number[], p: number): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
};

/** A chain's clients: the relayer (the delegate's keeper) and the funded account, nonces kept here. */
function chainCtx(chain: LocalChain) {
  const viemChain = toViemChain(chain);
  const transport = http(chain.rpcUrl);
  const wallet = (key: string) =>
    createWalletClient({
      chain: viemChain,
      transport,
      account: privateKeyToAccount(key as Hex, { nonceManager }),
    });
  return {
    chain,
    client: createPublicClient({ chain: viemChain, transport }),
    relayer: wallet(chain.relayer.privateKey),
    funded: wallet(chain.funded.privateKey),
  };
}
type Ctx = ReturnType<typeof chainCtx>;

async function succeeded(c: Ctx, hash: Hex): Promise<void> {
  const receipt = await c.client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  if (receipt.status !== "success") throw new Error(`${hash} reverted`);
}

/** A fresh burner holding AMOUNT of USDC, and its authorization to the delegate. */
async function newBurner(c: Ctx) {
  const burner = privateKeyToAccount(generatePrivateKey());
  const hash = await c.funded.writeContract({
    address: c.chain.usdc,
    abi: testUsdcAbi,
    functionName: "transfer",
    args: [burner.address, AMOUNT],
  });
  await succeeded(c, hash);
  const auth = await burner.signAuthorization({
    address: c.chain.delegate,
    chainId: c.chain.chainId,
    nonce: 0,
  });
  return { burner, auth };
}

/**
 * The same transactions without the service: the deposit, the relayer's type-4 sweep of a signed
 * Intent (USDC, to the other chain), the attestation fetched from the attester, and receiveMessage on
 * the destination. One relayer per chain, as the executor has; viem's nonce manager keeps them apart.
 */
async function bareSettlement(src: Ctx, dst: Ctx, attesterUrl: string): Promise<void> {
  const { burner, auth } = await newBurner(src);
  const deadline = BigInt(Math.floor(Date.now() / 1000) + 3600);
  const intent = {
    destChainId: BigInt(dst.chain.chainId),
    destAddr: privateKeyToAccount(generatePrivateKey()).address,
    minOut: AMOUNT,
    deadline,
    salt: generatePrivateKey(),
    inToken: src.chain.usdc,
    maxIn: AMOUNT,
    appFeeBps: 0,
    appFeeRecipient: zeroAddress,
  };
  const signature = await burner.signTypedData({
    domain: domainFor(src.chain.chainId, burner.address),
    types: intentTypes,
    primaryType: "Intent",
    message: intent,
  });
  const bridgeMaxFee = 0n;
  const sweepHash = await src.relayer.writeContract({
    address: burner.address,
    abi: burnerDelegateAbi,
    functionName: "sweep",
    args: [intent, signature, Number(PLATFORM_FEE_BPS), bridgeMaxFee, 2000],
    authorizationList: [auth],
  });
  await succeeded(src, sweepHash);
  const attested = await fetchAttestation({
    apiUrl: attesterUrl,
    sourceDomain: cctpOf(src).domain,
    txHash: sweepHash,
    timeoutMs: 60_000,
    signal: AbortSignal.timeout(60_000),
  });
  const relayHash = await dst.relayer.writeContract({
    address: cctpOf(dst).messageTransmitter,
    abi: messageTransmitterV2Abi,
    functionName: "receiveMessage",
    args: [attested.message as Hex, attested.attestation as Hex],
  });
  await succeeded(dst, relayHash);
}

function cctpOf(c: Ctx) {
  if (!c.chain.cctp) throw new Error(`chain ${c.chain.name} has no bridge deployed`);
  return c.chain.cctp;
}

const anvil = (c: Ctx) =>
  createPublicClient({ chain: toViemChain(c.chain), transport: http(c.chain.rpcUrl) });

/**
 * When the deposit was mined, as seen from here: its receipt polled every 10 ms (viem's own wait
 * polls far more slowly, which would hide most of the detection latency).
 */
async function minedAt(c: Ctx, hash: Hex): Promise<number> {
  for (;;) {
    const receipt = await c.client.getTransactionReceipt({ hash }).catch(() => null);
    if (receipt) {
      if (receipt.status !== "success") throw new Error(`deposit ${hash} reverted`);
      return performance.now();
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Instant mining: every transaction is mined at once (anvil's automine), and an empty block is mined
 * every EMPTY_BLOCK_MS so that confirmation depth advances when nothing else is sent, as blocks keep
 * coming on a real chain. Answers the function that puts the stack's own setting back: a block every
 * second (deploy/local/chains.ts starts anvil with --block-time 1).
 */
const EMPTY_BLOCK_MS = 250;
async function instantMining(c: Ctx): Promise<() => Promise<void>> {
  const client = anvil(c);
  const rpc = (method: string, params: unknown[]) => client.request({ method, params } as never);
  await rpc("evm_setAutomine", [true]);
  const ticker = setInterval(() => void rpc("evm_mine", []).catch(() => undefined), EMPTY_BLOCK_MS);
  return async () => {
    clearInterval(ticker);
    await rpc("evm_setAutomine", [false]);
    await rpc("evm_setIntervalMining", [1]);
  };
}

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
    const bareMs = await pool(SESSIONS, CONCURRENCY, () => bareSettlement(src, dst, attesterUrl));
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
