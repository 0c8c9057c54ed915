/**
 * What "relayer-paid work only moves value" costs per request (issue 16 item 1): the session core's
 * rules on the refund and commit paths (pure, per decision, on sessions with 1, 100 and 1,000
 * deposits and 0 or 20 gas records), and the gateway's chain reads a refund now makes (the burner's
 * balance alone, as before, against the balance and the dust floor read together) on the local
 * chain. Prints figures; asserts nothing. The chain part needs the local stack (.local/stack.json)
 * and only reads.
 *
 *   npx tsx test/bench/refund-checks.bench.ts [rounds=3] [ms=1000] [reads=200]
 */
import { performance } from "node:perf_hooks";
import { readStack } from "../../deploy/local/stack.ts";
import { createEvmAdapter } from "../../src/chains/evm/adapter.ts";
import type { EvmChainConfig } from "../../src/chains/evm/config.ts";
import { createGatewayChains } from "../../src/chains/gateway-chains.ts";
import {
  type Address,
  DEFAULT_SESSION_POLICY,
  decide,
  evolve,
  type GasRecord,
  type Hex,
  NATIVE_TOKEN,
  refundRefusal,
  type Session,
  type SessionCommand,
  type SessionState,
} from "../../src/domain/index.ts";
import { CHAIN_ID, createSession, median, transfer } from "./workload.ts";

const ROUNDS = Number(process.argv[2] ?? 3);
const MIN_MS = Number(process.argv[3] ?? 1_000);
const READS = Number(process.argv[4] ?? 200);
const T0 = Date.now();
const hex = (n: number, bytes = 32): Hex => `0x${n.toString(16).padStart(bytes * 2, "0")}`;
const meta = (commandId: string) => ({ commandId, issuedAt: T0, replyTo: null });

/** A session with `deposits` USDC deposits and `gasRecords` relayer transactions recorded. */
function sessionWith(deposits: number, gasRecords: number): Session {
  let state: SessionState = null;
  const apply = (command: SessionCommand) => {
    const d = decide(command, state);
    if (!d.ok) throw new Error(`fixture refused: ${d.rejection.code}`);
    for (const e of d.events) state = evolve(state, e);
  };
  apply(createSession("00000000-0000-4000-8000-000000000001", T0));
  for (let i = 0; i < deposits; i++) {
    apply({
      type: "RecordTransfer",
      data: {
        sessionId: (state as unknown as Session).id,
        transfer: transfer(1000 + i),
        terms: null,
        finality: null,
      },
      metadata: meta(`deposit ${i}`),
    });
  }
  const s = state as unknown as Session;
  const gas: GasRecord[] = Array.from({ length: gasRecords }, (_, i) => ({
    chainId: CHAIN_ID,
    txHash: hex(0x9000 + i),
    commandId: `c${i}`,
    gasUsed: 60_000n,
    feeWei: 60_000n * 10n ** 9n,
    cost: null,
  }));
  return { ...s, gasSpent: gas };
}

function refundOf(s: Session): Extract<SessionCommand, { type: "RequestRefund" }> {
  const token = s.deposits[0]?.token as Address;
  return {
    type: "RequestRefund",
    data: {
      sessionId: s.id,
      chainId: CHAIN_ID,
      token,
      to: hex(0xfa, 20),
      amount: 1_000n,
      deadline: Math.floor(T0 / 1000) + 3600,
      salt: hex(0x5a17),
      signature: hex(0x51, 65),
      onChain: { balance: 10n ** 12n, dustFloor: 10n },
    },
    metadata: meta("refund"),
  };
}

/** µs per call of `fn`, median of ROUNDS rounds of at least MIN_MS each. */
function perCall(fn: () => unknown): number {
  const rounds: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    let n = 0;
    const start = performance.now();
    let now = start;
    while (now - start < MIN_MS) {
      for (let i = 0; i < 100; i++) fn();
      n += 100;
      now = performance.now();
    }
    rounds.push(((now - start) * 1000) / n);
  }
  return median(rounds);
}

const fmt = (us: number) => (us < 10 ? us.toFixed(2) : us.toFixed(1));

console.log("the session core's rules, µs per decision (median of rounds)");
console.log("deposits  gas records  refundRefusal  decide(RequestRefund)  decide(refund, no chain facts)");
for (const [deposits, gasRecords] of [
  [1, 0],
  [100, 0],
  [1000, 0],
  [1, 20],
] as const) {
  const s = sessionWith(deposits, gasRecords);
  const command = refundOf(s);
  const { chainId, token, to, amount, onChain } = command.data;
  const rules = perCall(() =>
    refundRefusal(s, DEFAULT_SESSION_POLICY, { chainId, token, to, amount, onChain }),
  );
  const whole = perCall(() => decide(command, s));
  const bare = perCall(() => decide({ ...command, data: { ...command.data, onChain: null } }, s));
  console.log(
    `${String(deposits).padStart(8)}  ${String(gasRecords).padStart(11)}  ${fmt(rules).padStart(13)}  ${fmt(whole).padStart(21)}  ${fmt(bare).padStart(30)}`,
  );
}

const stack = await readStack();
const chain = stack?.chains.find((c) => c.name === "source");
if (!chain) {
  console.log("\nno local stack (.local/stack.json): chain reads not measured");
  process.exit(0);
}
const evm: EvmChainConfig = {
  name: chain.name,
  chainId: chain.chainId,
  rpcUrl: chain.rpcUrl,
  delegate: chain.delegate,
  confirmations: 2,
  minRelayerBalanceWei: "0",
};
const reads = createGatewayChains([createEvmAdapter({ ...evm, family: "evm" })]).reads;
const burner = chain.funded.address;
const dai = chain.dex?.dai;
const tokens: Array<[string, Address]> = [
  ["native", NATIVE_TOKEN],
  ["USDC", chain.usdc],
  ...(dai ? ([["DAI", dai]] as Array<[string, Address]>) : []),
];

async function latencies(read: () => Promise<unknown>): Promise<{ p50: number; p99: number }> {
  await read(); // the delegate's router, WETH and USDC are read once per chain: not counted
  const ms: number[] = [];
  for (let i = 0; i < READS; i++) {
    const start = performance.now();
    await read();
    ms.push(performance.now() - start);
  }
  ms.sort((a, b) => a - b);
  return { p50: ms[Math.floor(ms.length / 2)] ?? 0, p99: ms[Math.floor(ms.length * 0.99)] ?? 0 };
}

console.log(`\nthe refund route's chain reads on ${chain.rpcUrl}, ms per request over ${READS} (p50 / p99)`);
console.log("token   balance only (before)   balance + dust floor (now)");
for (const [name, token] of tokens) {
  const before = await latencies(() => reads.probe(chain.chainId, burner, token));
  const now = await latencies(() =>
    Promise.all([reads.probe(chain.chainId, burner, token), reads.gasValue(chain.chainId, token, 100_000n)]),
  );
  const floor = await reads.gasValue(chain.chainId, token, 100_000n);
  console.log(
    `${name.padEnd(6)}  ${`${before.p50.toFixed(2)} / ${before.p99.toFixed(2)}`.padStart(21)}   ${`${now.p50.toFixed(2)} / ${now.p99.toFixed(2)}`.padStart(24)}   (floor now: ${floor})`,
  );
}
