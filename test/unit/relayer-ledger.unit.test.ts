import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { evmCosts } from "../../src/chains/evm/cost.ts";
import { solanaCosts } from "../../src/chains/solana/cost.ts";
import { relayerSpend } from "../../src/chains/solana/relayer-spend.ts";
import type { SessionInput } from "../../src/domain/commands.ts";
import type { RelayerGasSpent } from "../../src/domain/events.ts";
import { evolve } from "../../src/domain/evolve.ts";
import { dustRefusal, type SessionPolicy, spentBy } from "../../src/domain/relayer-work.ts";
import { type Address, NATIVE_TOKEN, type Session } from "../../src/domain/types.ts";
import {
  fingerprintBytes,
  parsingCanonicalForm,
  rabinFingerprint64,
  SCHEMAS_DIR,
  typeForSchema,
} from "../../src/kafka/avro.ts";
import { singleObjectCodecs } from "../../src/kafka/codecs.ts";
import { TEST_POLICY, TEST_SOL, TEST_SOLANA_CHAIN_ID, TEST_SOLANA_USDC } from "../support/money.ts";
import { sessionRun, sessionRunUnder, solanaDeposit, solanaSessionCreated } from "../support/session-run.ts";

// One ledger of what the relayer spends (docs/DESIGN.md, "One money policy"): each family's fees in
// USDC base units, one budget and one dust rule for every family, under the test chains' facts
// (src/chains/<family>/cost.ts at the local stack's prices: 1 gwei and 3,000 USDC per ETH, 150 USDC
// per SOL).

const EVM = 31337;
const SOL = TEST_SOLANA_CHAIN_ID;
const ID = "5e1f0c1a-2222-4c1e-9a39-2d1f4c8e7a10";
const T0 = Date.UTC(2026, 0, 1);
const hex = (n: number, bytes = 32): `0x${string}` => `0x${n.toString(16).padStart(bytes * 2, "0")}`;
const USDC = hex(0x05dc, 20);
const BURNER = hex(0xb0, 20);
const PAYER = hex(0xfa, 20);
const SOL_BURNER = "4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T";
const SOL_WALLET = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin";
let n = 0;
const meta = () => ({ commandId: `c${++n}`, issuedAt: T0 + n, replyTo: null });

describe("each family's cost estimator", () => {
  it.each([
    // 350,000 gas x 1 gwei = 0.00035 ETH = 1.05 USDC
    ["evm", "sweep", evmCosts({}), 1_050_000n],
    ["evm", "refund", evmCosts({}), 300_000n],
    ["evm", "bounce", evmCosts({}), 0n],
    // two signatures x 5,000 lamports = 0.00001 SOL = 0.0015 USDC
    ["solana", "refund", solanaCosts({}), 1_500n],
    ["solana", "bounce", solanaCosts({}), 750n],
    // a token account's rent, 2,039,280 lamports
    ["solana", "account_open", solanaCosts({}), 305_892n],
  ] as const)("%s %s costs %s at the local prices, in USDC base units", (_, action, costs, usdc) => {
    expect(costs.actions[action]).toBe(usdc);
  });

  it("follows the configured coin price, gas price and priority fee", () => {
    // 100,000 gas x 2 gwei at 2,000 USDC per ETH: 0.4 USDC.
    expect(evmCosts({ nativePrice: "2000000000", gasPriceWei: "2000000000" }).actions.refund).toBe(400_000n);
    // (5,000 + 1,000) lamports at 200 USDC per SOL: 0.0012 USDC.
    expect(solanaCosts({ nativePrice: "200000000", priorityFeeLamports: "1000" }).actions.bounce).toBe(
      1_200n,
    );
  });

  it("on Solana, records what the relayer lost to a transaction: fee and rent, rent returned counted back", () => {
    const meta = (pre: number, post: number) => ({
      fee: 10_000,
      preBalances: [pre, 0],
      postBalances: [post, 0],
    });
    expect(relayerSpend(meta(1_000_000_000, 999_990_000)).feeWei).toBe(10_000n);
    // A sweep that opens a token account: the rent is the relayer's spend too.
    expect(relayerSpend(meta(1_000_000_000, 997_950_720)).feeWei).toBe(2_049_280n);
    // A close that returns more rent than the fee: nothing spent.
    expect(relayerSpend(meta(1_000_000_000, 1_002_029_280)).feeWei).toBe(0n);
    expect(relayerSpend({ fee: 5_000, preBalances: [], postBalances: [] }).feeWei).toBe(5_000n);
  });
});

/** An EVM session whose burner received 100 USDC. */
function evmSession() {
  return sessionRun(
    solanaSessionCreated(
      {
        sessionId: ID,
        destAddress: hex(0xd0, 20),
        destChainId: EVM,
        originChainId: null,
        burner: BURNER,
        auth: { address: hex(0xde, 20), chainId: EVM, nonce: 0, r: hex(1), s: hex(2), yParity: 0 },
      },
      meta(),
    ),
    {
      type: "RecordTransfer",
      data: {
        sessionId: ID,
        transfer: {
          chainId: EVM,
          token: USDC,
          amount: 100_000_000n,
          txHash: hex(0x700),
          logIndex: 0,
          blockNumber: 5n,
          blockHash: hex(0x800),
          from: PAYER,
        },
        terms: null,
        finality: null,
      },
      metadata: meta(),
    },
  );
}

const evmRefund = (salt: number): SessionInput => ({
  type: "RequestRefund",
  data: {
    sessionId: ID,
    chainId: EVM,
    token: USDC as Address,
    to: PAYER,
    amount: 1_000_000n,
    deadline: T0 / 1000 + 3600,
    salt: hex(salt),
    signature: hex(0x51, 65),
    onChain: { balance: 100_000_000n, dustFloor: 0n },
  },
  metadata: meta(),
});

const SOL_DEPOSITS = ["A", "B", "C", "D"].map(
  (c) => `5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uir${c}`,
);
/** A deposit of 7 USDC into the Solana burner, final; `i` picks its signature. */
const solanaPaid = (i: number) =>
  solanaDeposit(
    ID,
    { token: TEST_SOLANA_USDC, amount: 7_000_000n, txHash: SOL_DEPOSITS[i] as string },
    "finalized",
    meta(),
  );

/** An expired Solana session holding one deposit, under `policy`. */
function solanaSession(policy: SessionPolicy) {
  return sessionRunUnder(
    policy,
    solanaSessionCreated({ sessionId: ID, destAddress: SOL_WALLET, burner: SOL_BURNER }, meta()),
    solanaPaid(0),
    { type: "ExpireSession", data: { sessionId: ID, now: T0 / 1000 + 7200 }, metadata: meta() },
  );
}

const solanaRefund = (signature: string): SessionInput => ({
  type: "RequestSolanaRefund",
  data: {
    sessionId: ID,
    transaction: "AQID",
    signature,
    burner: SOL_BURNER,
    token: TEST_SOLANA_USDC,
    to: SOL_WALLET,
    amount: 7_000_000n,
  },
  metadata: meta(),
});

/** The executor's report of a mined transaction that cost the relayer `fee` of the chain's coin. */
const mined = (commandId: string, chainId: number, fee: bigint): SessionInput => ({
  type: "RecordExecutionResult",
  data: {
    sessionId: ID,
    executorCommandId: commandId,
    chainId,
    outcome: {
      type: "TransactionConfirmed",
      txHash: `tx-${commandId}`,
      blockNumber: 9n,
      gas: { gasUsed: 1n, feeWei: fee },
    },
  },
  metadata: meta(),
});

/**
 * Runs a stranger's loop of relayer-paid requests until the session core refuses one: each turn
 * sends its inputs (the last is the request), and the executor reports the request's transaction
 * mined at `fee` of the chain's coin.
 */
function loop(
  run: ReturnType<typeof sessionRun>,
  turn: (i: number) => SessionInput[],
  chainId: number,
  fee: bigint,
): { paid: number; refusal: string | null } {
  for (let i = 0; i < 100; i++) {
    let d = run.last;
    for (const input of turn(i)) d = run.send(input);
    if (!d.ok) return { paid: i, refusal: d.rejection.code };
    const sent = d.outbox.find((m) => m.type === "Executor");
    if (sent?.type !== "Executor") throw new Error("accepted without sending the work");
    run.send(mined(sent.data.commandId, chainId, fee));
  }
  return { paid: 100, refusal: null };
}

describe("the relayer budget, in USDC base units for every family", () => {
  it("stops an EVM refund loop at the budget", () => {
    // Each refund's estimate and its mined fee (100,000 gas at 1 gwei) are 0.3 USDC: twenty fit in 6 USDC.
    const evm = evmSession();
    expect(loop(evm, (i) => [evmRefund(0x5a17 + i)], EVM, 100_000n * 10n ** 9n)).toEqual({
      paid: 20,
      refusal: "gas_budget_spent",
    });
    expect(spentBy(evm.state, TEST_POLICY)).toBe(6_000_000n);
  });

  it("stops a Solana refund loop at the budget by the same rule, before the count of three would", () => {
    // Each relay's two signatures (10,000 lamports) are 0.0015 USDC: two fit in 0.003 USDC.
    const policy: SessionPolicy = { ...TEST_POLICY, relayerBudget: 3_000n };
    const solana = solanaSession(policy);
    // A new deposit before each refund after the first: without one the refund has nothing new to move.
    const turn = (i: number) => [...(i === 0 ? [] : [solanaPaid(i)]), solanaRefund(`sig${i}`)];
    expect(loop(solana, turn, SOL, 10_000n)).toEqual({ paid: 2, refusal: "gas_budget_spent" });
    expect(spentBy(solana.state, policy)).toBe(3_000n);
    // Under the default budget the same loop is stopped by the count instead, at three.
    expect(loop(solanaSession(TEST_POLICY), turn, SOL, 10_000n)).toEqual({
      paid: 3,
      refusal: "refund_limit_reached",
    });
  });
});

describe("the dust rule, the same for every family", () => {
  it.each([
    // [family, chain, token, amount, live floor the gateway read, refused]
    ["evm", EVM, NATIVE_TOKEN, 10n ** 14n, undefined, true], // a refund's 100,000 gas at 1 gwei
    ["evm", EVM, NATIVE_TOKEN, 10n ** 14n + 1n, undefined, false],
    ["evm", EVM, USDC, 500n, 1_000n, true], // a token priced only by the gateway's live floor
    ["evm", EVM, USDC, 1_001n, 1_000n, false],
    ["solana", SOL, TEST_SOL, 100_000n, undefined, true], // above the fee's 10,000 lamports, at the accepted minimum
    ["solana", SOL, TEST_SOL, 100_001n, undefined, false],
    ["solana", SOL, TEST_SOLANA_USDC, 10_000n, undefined, true], // the accepted minimum, above the fee's 0.0015 USDC
    ["solana", SOL, TEST_SOLANA_USDC, 10_001n, undefined, false],
  ] as const)(
    "%s: a refund of %s of %s moving %s (live floor %s) is refused: %s",
    (_, chainId, token, amount, liveFloor, refused) => {
      const rejection = dustRefusal(TEST_POLICY, {
        chainId,
        token,
        amount,
        action: "refund",
        ...(liveFloor === undefined ? {} : { liveFloor }),
      });
      expect(rejection?.code ?? null).toBe(refused ? "refund_below_dust" : null);
    },
  );

  it("prices the settlement asset by the action's cost when that is above the family's floor", () => {
    const dear: SessionPolicy = {
      ...TEST_POLICY,
      chains: TEST_POLICY.chains.map((c) =>
        c.chainId === SOL
          ? { ...c, costs: { ...c.costs, actions: { ...c.costs.actions, bounce: 50_000n } } }
          : c,
      ),
    };
    const bounce = (amount: bigint) =>
      dustRefusal(dear, { chainId: SOL, token: TEST_SOLANA_USDC, amount, action: "bounce" })?.code ?? null;
    expect(bounce(50_000n)).toBe("refund_below_dust");
    expect(bounce(50_001n)).toBeNull();
  });
});

describe("a RelayerGasSpent written before the ledger (no cost)", () => {
  it("is read from its older schema and still counts, priced by its chain's fee price", () => {
    const event: RelayerGasSpent = {
      type: "RelayerGasSpent",
      data: {
        chainId: EVM,
        txHash: hex(0xa1),
        commandId: "cmd",
        gasUsed: 61_000n,
        feeWei: 61_000n * 10n ** 9n,
        cost: null,
      },
      metadata: { sessionId: ID, version: 2, occurredAt: T0, commandId: "c" },
    };
    const codecs = singleObjectCodecs();
    // The same record as the schema before `cost` writes it: that version's fingerprint and body.
    const current = typeForSchema(JSON.parse(readFileSync(`${SCHEMAS_DIR}SessionEvent.avsc`, "utf8")));
    const older = typeForSchema(
      JSON.parse(readFileSync(`${SCHEMAS_DIR}history/SessionEvent/0xc0ce37e1ff1d9fdb.avsc`, "utf8")),
    );
    const body = older.toBuffer(current.fromBuffer(codecs.sessionEvent.encode(event).subarray(10)));
    const header = fingerprintBytes(rabinFingerprint64(parsingCanonicalForm(older)));
    const decoded = codecs.sessionEvent.decode(Buffer.concat([Buffer.from([0xc3, 0x01]), header, body]));
    expect(decoded).toEqual(event);
    const created = evmSession().state;
    const folded = evolve(created, {
      ...decoded,
      metadata: { ...decoded.metadata, version: created.version + 1 },
    });
    // 0.000061 ETH at 3,000 USDC.
    expect(spentBy(folded as Session, TEST_POLICY)).toBe(183_000n);
  });
});
