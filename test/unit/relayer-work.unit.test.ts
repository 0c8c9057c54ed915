import { describe, expect, it } from "vitest";
import {
  type Address,
  type ChainBalance,
  type CommandMetadata,
  depositedAssets,
  type EventMetadata,
  evolve,
  type Hex,
  initialState,
  NATIVE_TOKEN,
  type RejectionCode,
  type SessionEvent,
  type SessionInput,
  type SessionPolicy,
  type SessionState,
  type StandingRefund,
  type Transfer,
} from "../../src/domain/index.ts";
import { deciderSpec } from "../support/given-when-then.ts";
import { testDecide as decide, TEST_POLICY } from "../support/money.ts";

// Relayer-paid work only moves value (docs/SECURITY.md): the refund rules of src/domain/relayer-work.ts,
// judged on the chain facts the gateway puts on the command, and the session's relayer budget.

const hex = (n: number, bytes = 32): Hex => `0x${n.toString(16).padStart(bytes * 2, "0")}`;
const address = (n: number): Address => hex(n, 20);

const ID = "5e1f0c1a-1111-4c1e-9a39-2d1f4c8e7a10";
const T0 = Date.UTC(2026, 0, 1);
const CHAIN = 31337;
const USDC = address(0x05dc);
const DAI = address(0xda1);
const BURNER = address(0xb0);
const PAYER = address(0xfa);

const spec = (policy: SessionPolicy = TEST_POLICY) =>
  deciderSpec<SessionInput, SessionEvent, SessionState, RejectionCode>({
    decide: (command, state) => decide(command, state, policy),
    evolve,
    initialState,
  });
const given = spec();

let version = 0;
const at = (): EventMetadata => ({
  sessionId: ID,
  version: ++version,
  occurredAt: T0,
  commandId: `c${version}`,
});
const meta = (commandId: string): CommandMetadata => ({ commandId, issuedAt: T0 + 1000, replyTo: null });

const standingRefund: StandingRefund = {
  to: PAYER,
  deadline: T0 / 1000 + 86_400,
  signatures: { [CHAIN]: hex(0x55, 65) },
};

/** A fresh history: created (with a standing refund to the payer), then `rest`. */
function history(...rest: Array<(v: () => EventMetadata) => SessionEvent>): SessionEvent[] {
  version = 0;
  const created: SessionEvent = {
    type: "SessionCreated",
    data: {
      flow: "p2p_request",
      merchantId: null,
      burner: BURNER,
      auth: { address: address(0xde), chainId: CHAIN, nonce: 0, r: hex(1), s: hex(2), yParity: 0 },
      destAddress: address(0xd0),
      destChainId: CHAIN,
      pinnedDestinations: [],
      clientSecretHash: null,
      originChainId: null,
      appFeeRecipientSol: null,
      refundAddress: null,
      appFeeBps: 0,
      appFeeRecipient: NATIVE_TOKEN,
      standingRefund,
      stealth: null,
      stealthDestinations: null,
      expiresAt: T0 / 1000 + 1800,
      expectedAmount: null,
    },
    metadata: at(),
  };
  return [created, ...rest.map((e) => e(at))];
}

const deposit =
  (token: Address, amount: bigint, n: number) =>
  (m: () => EventMetadata): SessionEvent => {
    const transfer: Transfer = {
      chainId: CHAIN,
      token,
      amount,
      txHash: hex(0x700 + n),
      logIndex: token === NATIVE_TOKEN ? -1 : 0,
      blockNumber: BigInt(n),
      blockHash: hex(0x800 + n),
      from: PAYER,
    };
    return { type: "DepositObserved", data: { transfer, finality: null }, metadata: m() };
  };
const expired = (m: () => EventMetadata): SessionEvent => ({
  type: "SessionExpired",
  data: {},
  metadata: m(),
});
const refundAllRequested =
  (id: string, covered: number) =>
  (m: () => EventMetadata): SessionEvent => ({
    type: "RefundRequested",
    data: {
      id,
      kind: "refund_all",
      chainId: CHAIN,
      token: USDC,
      to: PAYER,
      amount: null,
      depositsCovered: covered,
    },
    metadata: m(),
  });
const refundUpdated =
  (id: string, status: "confirmed" | "failed") =>
  (m: () => EventMetadata): SessionEvent => ({
    type: "RefundUpdated",
    data: { id, status, txHash: hex(0x900), errorMessage: null },
    metadata: m(),
  });
/** A mined transaction that cost the relayer `cost` USDC base units (its gas at 1 gwei, 3,000 USDC per ETH). */
const gasSpent =
  (cost: bigint, n = 1) =>
  (m: () => EventMetadata): SessionEvent => ({
    type: "RelayerGasSpent",
    data: {
      chainId: CHAIN,
      txHash: hex(0xa00 + n),
      commandId: `cmd${n}`,
      gasUsed: cost / 3_000n,
      feeWei: (cost / 3_000n) * 10n ** 9n,
      cost,
    },
    metadata: m(),
  });

const chain = (balance: bigint, dustFloor = 1_000n): ChainBalance => ({ balance, dustFloor });

const refund = (
  over: { token?: Address; to?: Address; amount?: bigint; onChain?: ChainBalance | null } = {},
) =>
  ({
    type: "RequestRefund",
    data: {
      sessionId: ID,
      chainId: CHAIN,
      token: over.token ?? USDC,
      to: over.to ?? PAYER,
      amount: over.amount ?? 5_000_000n,
      deadline: T0 / 1000 + 3600,
      salt: hex(0x5a17),
      signature: hex(0x51, 65),
      onChain: over.onChain === undefined ? chain(5_000_000n) : over.onChain,
    },
    metadata: meta("refund"),
  }) satisfies SessionInput;

const refundAll = (onChain: ChainBalance | null = chain(5_000_000n), token: Address = USDC) =>
  ({
    type: "RequestRefundAll",
    data: { sessionId: ID, chainId: CHAIN, token, onChain },
    metadata: meta(`refund-all ${Math.random()}`),
  }) satisfies SessionInput;

describe("a burner-signed refund the relayer pays for", () => {
  const funded = (...more: Array<(m: () => EventMetadata) => SessionEvent>) =>
    history(deposit(USDC, 5_000_000n, 1), ...more);

  it("of a recorded deposit, within the balance and above the dust floor, is requested", () => {
    const decision = decide(refund(), funded().reduce(evolve, initialState()));
    expect(decision.ok && decision.events.map((e) => e.type)).toEqual(["RefundRequested"]);
    expect(decision.outbox.map((m) => m.type)).toEqual(["Executor"]);
  });

  it("to the burner itself is refused (400 refund_to_burner), whatever the letter case", () => {
    given(...funded())
      .when(refund({ to: BURNER.toUpperCase().replace("0X", "0x") as Address }))
      .thenRejects("refund_to_burner");
  });

  it("of an asset never deposited on the session is refused", () => {
    given(...funded())
      .when(refund({ token: DAI, onChain: chain(10n ** 18n) }))
      .thenRejects("asset_not_deposited");
    // Nothing deposited at all: the 1-wei stranger's session before its deposit.
    given(...history())
      .when(refund())
      .thenRejects("asset_not_deposited");
  });

  it("when the chain shows none of the asset, is refused as nothing to refund", () => {
    given(...funded())
      .when(refund({ onChain: chain(0n) }))
      .thenRejects("nothing_to_refund");
  });

  it("of more than the chain shows is refused", () => {
    given(...funded())
      .when(refund({ amount: 5_000_001n }))
      .thenRejects("refund_exceeds_balance");
  });

  it("at or below the dust floor is refused; one above it is not", () => {
    const oneWei = history(deposit(NATIVE_TOKEN, 1n, 1));
    given(...oneWei)
      .when(refund({ token: NATIVE_TOKEN, amount: 1n, onChain: chain(1n, 100_000_000_000_000n) }))
      .thenRejects("refund_below_dust");
    given(...funded())
      .when(refund({ amount: 1_000n }))
      .thenRejects("refund_below_dust");
    const decision = decide(refund({ amount: 1_001n }), funded().reduce(evolve, initialState()));
    expect(decision.ok).toBe(true);
  });

  it("written before the gateway read the chain (no balance on it) is judged on the session's records only", () => {
    const decision = decide(refund({ onChain: null }), funded().reduce(evolve, initialState()));
    expect(decision.ok).toBe(true);
    given(...funded())
      .when(refund({ onChain: null, to: BURNER }))
      .thenRejects("refund_to_burner");
  });

  it("that would take the relayer's spend on the session past its budget is refused", () => {
    // A refund is estimated at 100,000 gas: 0.3 USDC at the test chains' prices; the budget is 6 USDC.
    given(...funded(gasSpent(5_700_001n)))
      .when(refund())
      .thenRejects("gas_budget_spent");
    given(...funded(gasSpent(5_700_000n)))
      .when(refund())
      .thenState((s) => s?.refunds.length === 1);
    spec({ ...TEST_POLICY, relayerBudget: 5_700_000n })(...funded(gasSpent(5_400_001n)))
      .when(refund())
      .thenRejects("gas_budget_spent");
  });

  it("sent again with the same salt after it was accepted answers as the first, whatever the chain shows now", () => {
    const first = decide(refund(), funded().reduce(evolve, initialState()));
    if (!first.ok) throw new Error("the first refund was refused");
    given(...funded(), ...first.events)
      .when(refund({ onChain: chain(0n) }))
      .thenNothing();
  });
});

describe("refund-all, run by the relayer on an expired session", () => {
  const bounced = (...more: Array<(m: () => EventMetadata) => SessionEvent>) =>
    history(
      deposit(USDC, 5_000_000n, 1),
      expired,
      refundAllRequested("ra0", 1),
      refundUpdated("ra0", "confirmed"),
      ...more,
    );

  it("runs again only after a new deposit of the asset arrived since the last one", () => {
    // The stranger's loop: the relayer refunded it; a positive balance alone (an unindexed transfer) starts nothing.
    given(...bounced())
      .when(refundAll(chain(3_000_000n)))
      .thenRejects("no_new_deposit");
    given(...bounced(deposit(USDC, 3_000_000n, 2)))
      .when(refundAll(chain(3_000_000n)))
      .thenState((s) => s?.refunds.at(-1)?.depositsCovered === 2 && s.refunds.at(-1)?.status === "requested");
  });

  it("after a failed one (which moved nothing) runs again", () => {
    given(
      ...history(
        deposit(USDC, 5_000_000n, 1),
        expired,
        refundAllRequested("ra0", 1),
        refundUpdated("ra0", "failed"),
      ),
    )
      .when(refundAll())
      .thenState((s) => s?.refunds.length === 2);
  });

  it("of an asset never deposited, of nothing, of dust, or past the budget, is refused", () => {
    const expiredWithUsdc = history(deposit(USDC, 5_000_000n, 1), expired);
    // The deposit bounced itself on the way (standing refund attached): start from the state before that.
    given(...expiredWithUsdc)
      .when(refundAll(chain(10n ** 18n), DAI))
      .thenRejects("asset_not_deposited");
    given(...expiredWithUsdc)
      .when(refundAll(chain(0n)))
      .thenRejects("nothing_to_refund");
    given(...expiredWithUsdc)
      .when(refundAll(chain(900n)))
      .thenRejects("refund_below_dust");
    given(...history(deposit(USDC, 5_000_000n, 1), expired, gasSpent(6_000_000n)))
      .when(refundAll())
      .thenRejects("gas_budget_spent");
  });

  it("with a standing refund to the burner itself is refused, and the automatic bounce skips it", () => {
    const toBurner = history(expired).map((e) =>
      e.type === "SessionCreated"
        ? { ...e, data: { ...e.data, standingRefund: { ...standingRefund, to: BURNER } } }
        : e,
    );
    const late = {
      type: "RecordTransfer",
      data: {
        sessionId: ID,
        transfer: {
          chainId: CHAIN,
          token: USDC,
          amount: 5n,
          txHash: hex(0x77),
          logIndex: 0,
          blockNumber: 9n,
          blockHash: hex(0x78),
          from: PAYER,
        },
        terms: null,
        finality: null,
      },
      metadata: meta("late"),
    } satisfies SessionInput;
    // The late deposit is recorded, and no refund is asked of the relayer.
    given(...toBurner)
      .when(late)
      .thenState((s) => s?.deposits.length === 1 && s.refunds.length === 0);
  });
});

describe("the relayer's gas on the session", () => {
  const refunding = () => history(deposit(USDC, 5_000_000n, 1), expired, refundAllRequested("ra0", 1));
  const confirmed = (gasUsed: bigint | null, commandId = "result-1") =>
    ({
      type: "RecordExecutionResult",
      data: {
        sessionId: ID,
        executorCommandId: "ra0",
        chainId: CHAIN,
        outcome: {
          type: "TransactionConfirmed",
          txHash: hex(0x900),
          blockNumber: 10n,
          gas: gasUsed === null ? null : { gasUsed, feeWei: gasUsed * 10n ** 9n },
        },
      },
      metadata: meta(commandId),
    }) satisfies SessionInput;

  it("is recorded once per transaction from the executor's result", () => {
    const events = history(deposit(USDC, 5_000_000n, 1), expired, refundAllRequested("ra0", 1));
    const decision = decide(confirmed(61_000n), events.reduce(evolve, initialState()));
    if (!decision.ok) throw new Error("refused");
    expect(decision.events.map((e) => e.type)).toEqual(["RefundUpdated", "RelayerGasSpent"]);
    const gas = decision.events[1];
    expect(gas?.data).toEqual({
      chainId: CHAIN,
      txHash: hex(0x900),
      commandId: "ra0",
      gasUsed: 61_000n,
      feeWei: 61_000n * 10n ** 9n,
      // Priced in the ledger's unit at the chain's fee price: 0.000061 ETH at 3,000 USDC.
      cost: 183_000n,
    });
    // Versions stay consecutive after the refund's own event.
    expect(decision.events.map((e) => e.metadata.version)).toEqual([5, 6]);
    // The same result again (an executor restart): nothing more.
    given(...events, ...decision.events)
      .when(confirmed(61_000n, "result-again"))
      .thenNothing();
  });

  it("from a result without gas (written before it existed) records nothing", () => {
    given(...refunding())
      .when(confirmed(null))
      .thenState((s) => s?.gasSpent.length === 0 && s.refunds[0]?.status === "confirmed");
  });

  it("bounds a commit too: a session whose budget the refunds spent is not swept", () => {
    const decision = decide(
      {
        type: "CommitIntent",
        data: {
          sessionId: ID,
          sourceChainId: CHAIN,
          feeBps: 0,
          burner: null,
          auth: null,
          merchantPins: null,
          signature: hex(0x99, 65),
          intent: {
            destChainId: CHAIN,
            destAddr: address(0xd0),
            minOut: 5_000_000n,
            deadline: T0 / 1000 + 600,
            salt: hex(0x1),
            inToken: USDC,
            maxIn: 5_000_000n,
            appFeeBps: 0,
            appFeeRecipient: NATIVE_TOKEN,
          },
        },
        metadata: meta("commit"),
      },
      // 5 USDC spent: the sweep's 1.05 USDC would pass the 6 USDC budget.
      history(deposit(USDC, 5_000_000n, 1), gasSpent(2_500_000n, 1), gasSpent(2_500_000n, 2)).reduce(
        evolve,
        initialState(),
      ),
    );
    expect(decision.ok ? "accepted" : decision.rejection.code).toBe("gas_budget_spent");
  });
});

describe("an unsupported deposit (a token the operator does not accept)", () => {
  const unsupported = (m: () => EventMetadata): SessionEvent => ({
    type: "UnsupportedDepositObserved",
    data: {
      transfer: {
        chainId: CHAIN,
        token: DAI,
        amount: 10n ** 18n,
        txHash: hex(0x7aa),
        logIndex: 0,
        blockNumber: 5n,
        blockHash: hex(0x8aa),
        from: PAYER,
      },
      reason: "token_not_accepted",
    },
    metadata: m(),
  });

  it("is refundable through a burner-signed refund", () => {
    const state = history(unsupported).reduce(evolve, initialState());
    const decision = decide(refund({ token: DAI, amount: 10n ** 18n, onChain: chain(10n ** 18n) }), state);
    expect(decision.ok && decision.events.map((e) => e.type)).toEqual(["RefundRequested"]);
  });

  it("is never moved by refund-all at the relayer's cost", () => {
    given(...history(unsupported, expired))
      .when(refundAll(chain(10n ** 18n), DAI))
      .thenRejects("asset_not_deposited");
  });
});

describe("depositedAssets", () => {
  it("lists each recorded (chain, token) once, whatever the letter case", () => {
    const state = history(
      deposit(USDC, 1n, 1),
      deposit(USDC.toUpperCase().replace("0X", "0x") as Address, 2n, 2),
      deposit(NATIVE_TOKEN, 3n, 3),
    ).reduce(evolve, initialState());
    expect(state && depositedAssets(state)).toEqual([
      { chainId: CHAIN, token: USDC },
      { chainId: CHAIN, token: NATIVE_TOKEN },
    ]);
  });
});
