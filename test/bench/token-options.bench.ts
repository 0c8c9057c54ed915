/**
 * GET /sessions/:id/token-options latency, p50/p99, against the local provider servers
 * (deploy/local/providers/, the stack's own), for two wallets: `evm`, the stack's funded wallet (ETH,
 * USDC and DAI on both anvil chains, through Alchemy), and `solana`, a base58 wallet funded here with
 * 0.2 SOL and 25 USDC on the stack's Solana node (through Jupiter, priced from the local pool):
 *
 * - providers alone: the provider calls one lookup makes (Alchemy: both chains side by side, as the
 *   route does; Jupiter: holdings, then search and price side by side), through the adapter with no
 *   cache: the floor the route stands on;
 * - cold cache: the route on a service with PROVIDER_CACHE_TTL_MS=0, every request reaching the servers;
 * - warm cache: the route on a service with the default cache, after one request filled it.
 *
 * The service is the real one (actors, projector, gateway in this process; Kafka and Cassandra from the
 * environment, e.g. `source .env-test`). Requests are sequential, so each figure is one request's time.
 *
 *   npx tsx test/bench/token-options.bench.ts [requests=200] [evm|solana|both=both]
 *
 * The Solana wallet's funding is the only chain transaction: sent under /tmp/e2e.lock, as the tests'.
 */
import { loadavg } from "node:os";
import { Connection, Keypair, LAMPORTS_PER_SOL, PublicKey } from "@solana/web3.js";
import { ensureStack } from "../../deploy/local/stack.ts";
import { createAlchemy } from "../../src/providers/alchemy.ts";
import { createProviderCache } from "../../src/providers/cache.ts";
import { createJupiter } from "../../src/providers/jupiter.ts";
import { evmHoldings } from "../../src/providers/token-options.ts";
import type { TokenHolding } from "../../src/providers/types.ts";
import { newBurner, sessionBody } from "../support/payer.ts";
import { startTestService } from "../support/service.ts";
import { fundSolanaWallet, keypairOf } from "../support/solana-node.ts";
import { withFileLock } from "./flock.ts";
import { printLatency } from "./latency-line.ts";

const requests = Number(process.argv[2] ?? 200);
const which = process.argv[3] ?? "both";
if (!["evm", "solana", "both"].includes(which)) throw new Error("the wallet is evm, solana or both");
const stack = await ensureStack({ root: ".local" });
const [source, dest] = stack.chains;
if (!source || !dest) throw new Error("the stack has no chains");
const noCache = () => createProviderCache({ ttlMs: 0, max: 1 });

/** Each measured wallet: its address and one uncached lookup through its provider's adapter. */
const wallets: { name: string; address: string; lookup: () => Promise<TokenHolding[]> }[] = [];
if (which !== "solana") {
  const alchemy = stack.providers.alchemy;
  const indexer = createAlchemy({
    ...alchemy,
    networks: Object.fromEntries(Object.entries(alchemy.networks).map(([id, n]) => [Number(id), n])),
    timeoutMs: 5000,
    cache: noCache(),
  });
  const address = source.funded.address;
  wallets.push({ name: "evm", address, lookup: () => evmHoldings(indexer, address) });
}
if (which !== "evm") {
  const { solana } = stack;
  const owner = Keypair.generate().publicKey;
  await withFileLock("/tmp/e2e.lock", () =>
    fundSolanaWallet(
      new Connection(solana.rpcUrl, "confirmed"),
      keypairOf(solana.testKey),
      new PublicKey(solana.usdcMint),
      owner,
      { lamports: BigInt(LAMPORTS_PER_SOL / 5), usdc: 25_000_000n },
    ),
  );
  const jupiter = createJupiter({
    ...stack.providers.jupiter,
    chainId: 792703810, // the local node's (docs/SOLANA.md)
    usdcMint: solana.usdcMint,
    timeoutMs: 5000,
    cache: noCache(),
  });
  wallets.push({
    name: "solana",
    address: owner.toBase58(),
    lookup: () => jupiter.holdings(owner.toBase58()),
  });
}

async function timed(n: number, once: () => Promise<unknown>): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await once();
    ms.push(performance.now() - t0);
  }
  return ms;
}

console.log(
  `load average before: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);
for (const w of wallets) {
  const holdings = await w.lookup();
  console.log(
    `${w.name} wallet ${w.address}: ${holdings.length} holdings (${holdings.map((h) => `${h.symbol}@${h.chainId}`).join(", ")})`,
  );
  printLatency(`${w.name}: providers alone (adapter, no cache)`, await timed(requests, w.lookup));
}

for (const [label, ttl] of [
  ["route, cold cache (PROVIDER_CACHE_TTL_MS=0)", "0"],
  ["route, warm cache (PROVIDER_CACHE_TTL_MS=600000)", "600000"],
] as const) {
  const service = await startTestService({
    roles: ["actors", "projector", "gateway"],
    env: { PROVIDER_CACHE_TTL_MS: ttl, RATE_LIMIT_PER_SECOND: "100000", RATE_LIMIT_BURST: "100000" },
  });
  try {
    const created = await fetch(`${service.url}/sessions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(sessionBody(await newBurner(source), dest)),
    });
    const { id } = (await created.json()) as { id: string };
    for (const w of wallets) {
      const url = `${service.url}/sessions/${id}/token-options?wallet=${w.address}`;
      const once = async () => {
        const res = await fetch(url);
        if (res.status !== 200) throw new Error(`token-options answered ${res.status}: ${await res.text()}`);
        await res.json();
      };
      await once(); // the session read, and for the warm run the cache, filled
      printLatency(`${w.name}: ${label}`, await timed(requests, once));
    }
  } finally {
    await service.stop();
  }
}
console.log(
  `load average after: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);
process.exit(0);
