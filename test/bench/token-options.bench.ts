/**
 * GET /sessions/:id/token-options latency, p50/p99, for the stack's funded wallet (ETH, USDC and DAI on
 * both anvil chains) against the local provider servers (deploy/local/providers/, the stack's own):
 *
 * - providers alone: the Alchemy calls one lookup makes (both chains side by side, as the route does),
 *   through the adapter with no cache: the floor the route stands on;
 * - cold cache: the route on a service with PROVIDER_CACHE_TTL_MS=0, every request reaching the servers;
 * - warm cache: the route on a service with the default cache, after one request filled it.
 *
 * The service is the real one (actors, projector, gateway in this process; Kafka and Cassandra from the
 * environment, e.g. `source .env-test`). Requests are sequential, so each figure is one request's time.
 *
 *   npx tsx test/bench/token-options.bench.ts [requests=200]
 */
import { loadavg } from "node:os";
import { ensureStack } from "../../deploy/local/stack.ts";
import { createAlchemy } from "../../src/providers/alchemy.ts";
import { createProviderCache } from "../../src/providers/cache.ts";
import { evmHoldings } from "../../src/providers/token-options.ts";
import { newBurner, sessionBody } from "../support/payer.ts";
import { startTestService } from "../support/service.ts";
import { printLatency } from "./latency-line.ts";

const requests = Number(process.argv[2] ?? 200);
const stack = await ensureStack({ root: ".local" });
const [source, dest] = stack.chains;
if (!source || !dest) throw new Error("the stack has no chains");
const wallet = source.funded.address;
const alchemy = stack.providers.alchemy;

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
const indexer = createAlchemy({
  ...alchemy,
  networks: Object.fromEntries(Object.entries(alchemy.networks).map(([id, n]) => [Number(id), n])),
  timeoutMs: 5000,
  cache: createProviderCache({ ttlMs: 0, max: 1 }),
});
const holdings = await evmHoldings(indexer, wallet);
console.log(
  `wallet ${wallet}: ${holdings.length} holdings (${holdings.map((h) => `${h.symbol}@${h.chainId}`).join(", ")})`,
);
printLatency(
  "providers alone (adapter, no cache)",
  await timed(requests, () => evmHoldings(indexer, wallet)),
);

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
    const url = `${service.url}/sessions/${id}/token-options?wallet=${wallet}`;
    const once = async () => {
      const res = await fetch(url);
      if (res.status !== 200) throw new Error(`token-options answered ${res.status}: ${await res.text()}`);
      await res.json();
    };
    await once(); // the session read, and for the warm run the cache, filled
    printLatency(label, await timed(requests, once));
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
