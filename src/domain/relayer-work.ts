import type { ChainBalance, RecordExecutionResult } from "./commands.ts";
import type { Decision } from "./decision.ts";
import type { RelayerGasSpent } from "./events.ts";
import { type Rejection, reject } from "./rejections.ts";
import { type ChainAddress, type RefundRecord, type Session, sameId } from "./types.ts";
import { type ChainMoney, costOf, dustFloorOf, feeInLedger, moneyOf, type RelayerAction } from "./value.ts";

/**
 * What the relayer may be asked to pay for: a transaction it sends for a session must move value
 * the session recorded, and what the relayer spends on a session is bounded. Pure rules, judged on
 * the chain facts the gateway put on the command (ChainBalance) and on the session's own records.
 */

/**
 * The operator's limits on a session's relayer-paid work (src/config.ts: SESSION_RELAYER_BUDGET) and
 * the money facts of the configured chains (src/chains/money.ts), as data: the decider reads no
 * configuration.
 */
export interface SessionPolicy {
  /**
   * What the relayer may spend on one session, in ledger units (USDC base units, every family
   * alike): no transaction starts whose estimated cost would take the session's spend past it.
   */
  relayerBudget: bigint;
  /** What each chain's family says about its money and its costs (src/domain/value.ts). */
  chains: readonly ChainMoney[];
}

/**
 * 6 USDC: what 2,000,000 gas cost at the local stack's 1 gwei and 3,000 USDC per ETH, the gas
 * budget it replaces. A settlement (about 1.5 USDC of gas there) and fifteen refunds (0.3 USDC
 * each) fit, and a stranger's loop is bounded to it.
 */
export const DEFAULT_RELAYER_BUDGET = 6_000_000n;

export const DEFAULT_SESSION_POLICY: SessionPolicy = { relayerBudget: DEFAULT_RELAYER_BUDGET, chains: [] };

/** One asset on one chain: the native coin is NATIVE_TOKEN (EVM) or its family's spelling. */
export interface Asset {
  chainId: number;
  token: ChainAddress;
}

/**
 * The assets a refund may move: every (chain, token) recorded as a deposit on the session, accepted
 * or unsupported (a token the operator does not take is still the payer's to get back), once each.
 * The only definition of "recorded as a deposit" the refund rules use.
 */
export function depositedAssets(session: Session): Asset[] {
  const assets: Asset[] = [];
  for (const t of [...session.deposits, ...session.unsupportedDeposits]) {
    if (!assets.some((a) => a.chainId === t.chainId && sameId(a.token, t.token))) {
      assets.push({ chainId: t.chainId, token: t.token });
    }
  }
  return assets;
}

export const isDeposited = (session: Session, asset: Asset): boolean =>
  depositedAssets(session).some((a) => a.chainId === asset.chainId && sameId(a.token, asset.token));

/**
 * What the relayer has spent on the session, in ledger units: each mined transaction's recorded
 * cost; one recorded before the ledger (no cost) is priced by its chain's fee price now.
 */
export function spentBy(session: Session, policy: SessionPolicy): bigint {
  let spent = 0n;
  for (const g of session.gasSpent) {
    if (g.cost !== null) spent += g.cost;
    else {
      const chain = moneyOf(policy.chains, g.chainId);
      if (chain !== null) spent += feeInLedger(chain, g.feeWei);
    }
  }
  return spent;
}

/** One transaction the relayer would send for the session: the action and the chain it is paid on. */
export interface RelayerWork {
  chainId: number;
  action: RelayerAction;
}

/**
 * The one budget rule of relayer-paid work, for every family: what the relayer has spent on the
 * session plus what this work is expected to cost must stay within the budget. null when the work
 * may start; else why not. Every relayer-paid decision asks it before its command is sent.
 */
export function budgetRefusal(
  session: Session,
  policy: SessionPolicy,
  work: readonly RelayerWork[],
): Rejection | null {
  const spent = spentBy(session, policy);
  let cost = 0n;
  for (const w of work) cost += costOf(policy.chains, w.chainId, w.action);
  if (spent + cost <= policy.relayerBudget) return null;
  return reject(
    "gas_budget_spent",
    `the relayer has spent ${spent} of this session's budget of ${policy.relayerBudget} (USDC base units); ${work.map((w) => w.action).join(" + ")} would cost about ${cost} more`,
  );
}

/**
 * The one dust rule of relayer-paid transfers, for every family: a transfer of `amount` must move
 * more than the action costs in that token (dustFloorOf), or than a live floor the gateway read
 * (`liveFloor`, EVM: the refund's gas at the chain's DEX price), whichever is higher.
 */
export function dustRefusal(
  policy: SessionPolicy,
  transfer: Asset & { amount: bigint; action: RelayerAction; liveFloor?: bigint },
): Rejection | null {
  const priced = dustFloorOf(policy.chains, transfer.chainId, transfer.token, transfer.action);
  const live = transfer.liveFloor ?? 0n;
  const floor = live > priced ? live : priced;
  if (transfer.amount > floor) return null;
  return reject(
    "refund_below_dust",
    `a refund of ${transfer.amount} is dust: it must move more than ${floor} (what the relayer's transaction costs)`,
  );
}

/**
 * What an automatic refund or bounce of an asset would move, as the session knows it: the deposits
 * of it recorded since the last confirmed one of `moved` (that took the balance then).
 */
export function unmovedAmount(session: Session, moved: readonly RefundRecord[], asset: Asset): bigint {
  const covered = moved.findLast((r) => r.status === "confirmed")?.depositsCovered ?? 0;
  let amount = 0n;
  const deposits = session.deposits.filter(
    (t) => t.chainId === asset.chainId && sameId(t.token, asset.token),
  );
  for (const t of deposits.slice(covered)) amount += t.amount;
  return amount;
}

/**
 * The rule for relayer-paid work the service starts on its own (a standing refund's refund-all, a
 * Solana bounce): the dust rule on what it would move, then the budget. Either refuses silently:
 * the burner's key can still move the money.
 */
export function automaticRefusal(
  session: Session,
  policy: SessionPolicy,
  work: Asset & { action: RelayerAction; moved: readonly RefundRecord[] },
): Rejection | null {
  const amount = unmovedAmount(session, work.moved, work);
  return (
    dustRefusal(policy, { chainId: work.chainId, token: work.token, amount, action: work.action }) ??
    budgetRefusal(session, policy, [{ chainId: work.chainId, action: work.action }])
  );
}

/**
 * The rules every relayer-paid refund passes, in the order a client can act on them: the recipient
 * is not the burner, the asset was deposited, the chain shows something to move and at least
 * `amount` of it (null: the whole balance), above the dust floor, and the budget is not spent.
 * `onChain` null: a command written before the gateway read the chain; its balance is not judged.
 */
export function refundRefusal(
  session: Session,
  policy: SessionPolicy,
  refund: Asset & { to: ChainAddress; amount: bigint | null; onChain: ChainBalance | null },
): Rejection | null {
  if (session.burner !== null && sameId(refund.to, session.burner)) return reject("refund_to_burner");
  if (!isDeposited(session, refund)) return reject("asset_not_deposited");
  const chain = refund.onChain;
  if (chain !== null) {
    if (chain.balance === 0n) return reject("nothing_to_refund");
    const amount = refund.amount ?? chain.balance;
    if (amount > chain.balance) {
      return reject("refund_exceeds_balance", `the burner holds ${chain.balance}, the refund asks ${amount}`);
    }
    const dust = dustRefusal(policy, { ...refund, amount, action: "refund", liveFloor: chain.dustFloor });
    if (dust !== null) return dust;
  }
  return budgetRefusal(session, policy, [{ chainId: refund.chainId, action: "refund" }]);
}

/**
 * A mined transaction's fee, priced in ledger units, appended once to the decision that takes its result: the executor may
 * report a result again (a retry after a crash), and a transaction is counted once. A refused result
 * records nothing: it answers no command of the session.
 */
export function withGasSpent(
  session: Session,
  command: RecordExecutionResult,
  decision: Decision,
  policy: SessionPolicy,
): Decision {
  const { outcome, chainId, executorCommandId } = command.data;
  if (!decision.ok || outcome.type === "TransactionSubmitted" || outcome.type === "ExecutionFailed") {
    return decision;
  }
  const { gas, txHash } = outcome;
  if (gas === null || session.gasSpent.some((g) => g.chainId === chainId && sameId(g.txHash, txHash))) {
    return decision;
  }
  const chain = moneyOf(policy.chains, chainId);
  const event: RelayerGasSpent = {
    type: "RelayerGasSpent",
    data: {
      chainId,
      txHash,
      commandId: executorCommandId,
      gasUsed: gas.gasUsed,
      feeWei: gas.feeWei,
      // Priced once, here, for every family: the chain's fee in ledger units at its fee price.
      cost: chain === null ? null : feeInLedger(chain, gas.feeWei),
    },
    metadata: {
      sessionId: session.id,
      version: session.version + decision.events.length + 1,
      occurredAt: command.metadata.issuedAt,
      commandId: command.metadata.commandId,
    },
  };
  return { ...decision, events: [...decision.events, event] };
}
