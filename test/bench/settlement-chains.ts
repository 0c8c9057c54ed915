/**
 * The chain side of the settlement benchmarks: clients per local chain, a burner funded and
 * authorized, the bare transactions of a settlement sent by a plain viem script (the baseline the
 * service is measured against), and anvil's mining modes.
 */
import { createPublicClient, createWalletClient, type Hex, http, zeroAddress } from "viem";
import { generatePrivateKey, nonceManager, privateKeyToAccount } from "viem/accounts";
import { type LocalChain, toViemChain } from "../../deploy/local/chains.ts";
import { burnerDelegateAbi, messageTransmitterV2Abi, testUsdcAbi } from "../../src/chains/evm/abi.ts";
import { fetchAttestation } from "../../src/chains/evm/settle/attestation.ts";
import { domainFor, intentTypes } from "../../src/chains/evm/typed-data/eip712.ts";
import { createPacer } from "../../src/support/pacer.ts";

export const AMOUNT = 5_000_000n; // 5 USDC per session
export const PLATFORM_FEE_BPS = 80n;
/** The executor's defaults (ATTESTATION_POLL_MS 500, ATTESTATION_MAX_PER_SECOND 10), for the baseline. */
const BENCH_PACER = createPacer(10);

/** Runs `n` jobs, `concurrency` at a time; answers the wall time in ms. */
export async function pool(
  n: number,
  concurrency: number,
  job: (i: number) => Promise<void>,
): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  const worker = async () => {
    while (next < n) await job(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
  return performance.now() - t0;
}

/** "p50 … ms, p99 … ms" of latencies in ms. */
export const latencyLine = (xs: number[]): string =>
  `p50 ${percentile(xs, 50).toFixed(0)} ms, p99 ${percentile(xs, 99).toFixed(0)} ms`;

export const percentile = (xs: number[], p: number): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
};

/** A chain's clients: the relayer (the delegate's keeper) and the funded account, nonces kept here. */
export function chainCtx(chain: LocalChain) {
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
export type Ctx = ReturnType<typeof chainCtx>;

export async function succeeded(c: Ctx, hash: Hex): Promise<void> {
  const receipt = await c.client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  if (receipt.status !== "success") throw new Error(`${hash} reverted`);
}

/** A fresh burner holding AMOUNT of USDC, and its authorization to the delegate. */
export async function newBurner(c: Ctx) {
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

/** When each step of a bare settlement was seen done (performance.now()). */
export interface BareMarks {
  sent: number;
  swept: number;
  attested?: number;
  relayed?: number;
}

/**
 * The same transactions without the service: the deposit, the relayer's type-4 sweep of a signed
 * Intent (USDC; to the other chain through the bridge, or on the same chain when `dst` is `src`), the
 * attestation fetched from the attester, and receiveMessage on the destination. One relayer per
 * chain, as the executor has; viem's nonce manager keeps them apart. `attestation` picks how the
 * attester is asked: as the executor does (fetchAttestation), or every 20 ms (the attester's own time).
 */
export async function bareSettlement(
  src: Ctx,
  dst: Ctx,
  attesterUrl: string,
  attestation: "as-the-executor" | "tight" = "as-the-executor",
): Promise<BareMarks> {
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
  const sent = performance.now();
  const sweepHash = await src.relayer.writeContract({
    address: burner.address,
    abi: burnerDelegateAbi,
    functionName: "sweep",
    args: [intent, signature, Number(PLATFORM_FEE_BPS), bridgeMaxFee, 2000],
    authorizationList: [auth],
  });
  await succeeded(src, sweepHash);
  const swept = performance.now();
  if (dst === src) return { sent, swept };
  const attested =
    attestation === "tight"
      ? await attestedNow(attesterUrl, cctpOf(src).domain, sweepHash)
      : await fetchAttestation({
          apiUrl: attesterUrl,
          sourceDomain: cctpOf(src).domain,
          txHash: sweepHash,
          timeoutMs: 60_000,
          pollMs: 500,
          pacer: BENCH_PACER,
          signal: AbortSignal.timeout(60_000),
        });
  const attestedAt = performance.now();
  const relayHash = await dst.relayer.writeContract({
    address: cctpOf(dst).messageTransmitter,
    abi: messageTransmitterV2Abi,
    functionName: "receiveMessage",
    args: [attested.message as Hex, attested.attestation as Hex],
  });
  await succeeded(dst, relayHash);
  return { sent, swept, attested: attestedAt, relayed: performance.now() };
}

/** The attester asked every 20 ms until the burn is attested: when it is ready, give or take 20 ms. */
async function attestedNow(attesterUrl: string, domain: number, txHash: Hex) {
  const url = `${attesterUrl}/v2/messages/${domain}?transactionHash=${txHash}`;
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
    const res = await fetch(url);
    if (res.ok) {
      const body = (await res.json()) as { messages?: { status: string; message: Hex; attestation: Hex }[] };
      const ready = body.messages?.find((m) => m.status === "complete");
      if (ready) return ready;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no attestation of ${txHash} within 60 s`);
}

export function cctpOf(c: Ctx) {
  if (!c.chain.cctp) throw new Error(`chain ${c.chain.name} has no bridge deployed`);
  return c.chain.cctp;
}

export const anvil = (c: Ctx) =>
  createPublicClient({ chain: toViemChain(c.chain), transport: http(c.chain.rpcUrl) });

/**
 * When the deposit was mined, as seen from here (unix ms): its receipt polled every 10 ms (viem's
 * own wait polls far more slowly, which would hide most of the detection latency).
 */
export async function minedAt(c: Ctx, hash: Hex): Promise<number> {
  for (;;) {
    const receipt = await c.client.getTransactionReceipt({ hash }).catch(() => null);
    if (receipt) {
      if (receipt.status !== "success") throw new Error(`deposit ${hash} reverted`);
      return Date.now();
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
export async function instantMining(c: Ctx): Promise<() => Promise<void>> {
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
