/**
 * What the one money policy (src/domain/value.ts, issue 27) costs per decision: `valueRoute` with its
 * dust floor alone, and the whole session-core decision of a Solana commit that runs it, under the
 * facts of 3 and of 30 configured chains. Pure: no stack. Prints figures; asserts nothing.
 *
 *   npx tsx test/bench/money-policy.bench.ts [rounds=5] [ms=1000]
 */
import { performance } from "node:perf_hooks";
import { decide, evolve, type SessionInput, type SessionState } from "../../src/domain/index.ts";
import { DEFAULT_SESSION_POLICY } from "../../src/domain/relayer-work.ts";
import { type ChainMoney, deliveryBelowFloor, valueRoute } from "../../src/domain/value.ts";
import { TEST_CHAINS, TEST_SOLANA_CHAIN_ID, TEST_SOLANA_USDC } from "../support/money.ts";
import { solanaDeposit, solanaSessionCreated } from "../support/session-run.ts";

const ROUNDS = Number(process.argv[2] ?? 5);
const MIN_MS = Number(process.argv[3] ?? 1_000);
const ID = "5d7c1f0e-9a7b-4c3d-8e2f-1a2b3c4d5e6f";
const BURNER = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin";
const DEST = "0x00000000000000000000000000000000000000d0";
const VAULT = "GJdLMKMT8QAgdVHVYByWJd1Bnxbdw5sGgmewU9AysHya";
const RELAYER = "4sGjMW1sUnHzSxGspuhpqLDx6wiyjNtZAMdL4VZHirAn";
const EVM_DEST = 31338;

/** Median ns per call over ROUNDS rounds of at least MIN_MS each. */
function perCall(fn: () => unknown): number {
  const rounds: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    let n = 0;
    const t0 = performance.now();
    let t = t0;
    while (t - t0 < MIN_MS) {
      for (let i = 0; i < 1_000; i++) fn();
      n += 1_000;
      t = performance.now();
    }
    rounds.push(((t - t0) * 1e6) / n);
  }
  rounds.sort((a, b) => a - b);
  return rounds[Math.floor(rounds.length / 2)] as number;
}

const meta = (commandId: string) => ({ commandId, issuedAt: 1_800_000_000_000, replyTo: null });
let state: SessionState = null;
for (const input of [
  solanaSessionCreated(
    { sessionId: ID, burner: BURNER, destAddress: DEST, destChainId: EVM_DEST },
    meta("create"),
  ),
  solanaDeposit(ID, { token: TEST_SOLANA_USDC, amount: 10_000_000n }, "finalized", meta("deposit")),
] as SessionInput[]) {
  const d = decide(input, state);
  if (!d.ok) throw new Error(`setup refused: ${d.rejection.code}`);
  for (const e of d.events) state = evolve(state, e);
}
const commit: SessionInput = {
  type: "CommitSolanaSweep",
  data: {
    sessionId: ID,
    transaction: "AQID",
    burner: BURNER,
    token: TEST_SOLANA_USDC,
    legs: [
      { to: VAULT, amount: 9_920_000n },
      { to: RELAYER, amount: 80_000n },
    ],
    feeBps: 80,
    feeRecipient: RELAYER,
    vault: VAULT,
  },
  metadata: meta("commit"),
};

/** The test chains, and as many more EVM chains as make `count` (the Solana chain last, the worst scan). */
const chainsOf = (count: number): ChainMoney[] => {
  const evm = TEST_CHAINS.filter((c) => c.chainId !== TEST_SOLANA_CHAIN_ID);
  const extra = Array.from({ length: Math.max(0, count - TEST_CHAINS.length) }, (_, i) => ({
    ...(evm[0] as ChainMoney),
    chainId: 100_000 + i,
  }));
  return [...evm, ...extra, ...TEST_CHAINS.filter((c) => c.chainId === TEST_SOLANA_CHAIN_ID)];
};

console.log(`node ${process.version}, ${ROUNDS} rounds of >= ${MIN_MS} ms, median ns per call`);
console.log("chains  valueRoute+floor  decide(CommitSolanaSweep)  policy share");
for (const count of [TEST_CHAINS.length, 30]) {
  const chains = chainsOf(count);
  const policy = { ...DEFAULT_SESSION_POLICY, chains };
  const q = {
    deposit: { chainId: TEST_SOLANA_CHAIN_ID, token: TEST_SOLANA_USDC },
    destChainId: EVM_DEST,
    priced: false,
  };
  const rule = perCall(() => deliveryBelowFloor(valueRoute(chains, q), 9_920_000n, "fill"));
  const d = decide(commit, state, policy);
  if (!d.ok) throw new Error(`commit refused: ${d.rejection.code}`);
  const whole = perCall(() => decide(commit, state, policy));
  console.log(
    `${String(chains.length).padStart(6)}  ${rule.toFixed(0).padStart(16)}  ${whole.toFixed(0).padStart(25)}  ${((100 * rule) / whole).toFixed(1).padStart(11)}%`,
  );
}
