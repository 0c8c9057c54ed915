import type { ChainBalance, RecordExecutionResult } from "./commands.ts";
import type { Decision } from "./decision.ts";
import type { RelayerGasSpent } from "./events.ts";
import { type Rejection, reject } from "./rejections.ts";
import { type ChainAddress, type Session, sameId } from "./types.ts";
import type { ChainMoney } from "./value.ts";

/**
 * What the relayer may be asked to pay for: a transaction it sends for a session must move value
 * the session recorded, and a session's relayer gas is bounded. Pure rules, judged on the chain
 * facts the gateway put on the command (ChainBalance) and on the session's own records.
 */

/**
 * The operator's limits on a session's relayer-paid work (src/config.ts: SESSION_GAS_BUDGET) and
 * the money facts of the configured chains (src/chains/money.ts), as data: the decider reads no
 * configuration.
 */
export interface SessionPolicy {
  /** Gas units the relayer may spend on one session; no new transaction starts once it is reached. */
  gasBudget: bigint;
  /** What each chain's family says about its money (src/domain/value.ts). */
  chains: readonly ChainMoney[];
}

/**
 * A sweep with a swap and a bridge burn uses about 350k gas and a relay about 150k; refunds 60-110k.
 * Two million covers a settlement and a dozen refunds, and bounds a stranger's loop to that.
 */
export const DEFAULT_SESSION_POLICY: SessionPolicy = { gasBudget: 2_000_000n, chains: [] };

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

/** Gas units the relayer has spent on the session so far. */
export function gasUsedBy(session: Session): bigint {
  let used = 0n;
  for (const g of session.gasSpent) used += g.gasUsed;
  return used;
}

/** null when the relayer may start another transaction for the session; else why not. */
export function budgetLeft(session: Session, policy: SessionPolicy): Rejection | null {
  const used = gasUsedBy(session);
  if (used < policy.gasBudget) return null;
  return reject(
    "gas_budget_spent",
    `the relayer has spent ${used} gas on this session, its budget is ${policy.gasBudget}`,
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
    if (amount <= chain.dustFloor) {
      return reject(
        "refund_below_dust",
        `a refund of ${amount} is dust: it must move more than ${chain.dustFloor} (what its gas costs)`,
      );
    }
  }
  return budgetLeft(session, policy);
}

/**
 * A mined transaction's gas, appended once to the decision that takes its result: the executor may
 * report a result again (a retry after a crash), and a transaction is counted once. A refused result
 * records nothing: it answers no command of the session.
 */
export function withGasSpent(session: Session, command: RecordExecutionResult, decision: Decision): Decision {
  const { outcome, chainId, executorCommandId } = command.data;
  if (!decision.ok || outcome.type === "TransactionSubmitted" || outcome.type === "ExecutionFailed") {
    return decision;
  }
  const { gas, txHash } = outcome;
  if (gas === null || session.gasSpent.some((g) => g.chainId === chainId && sameId(g.txHash, txHash))) {
    return decision;
  }
  const event: RelayerGasSpent = {
    type: "RelayerGasSpent",
    data: { chainId, txHash, commandId: executorCommandId, gasUsed: gas.gasUsed, feeWei: gas.feeWei },
    metadata: {
      sessionId: session.id,
      version: session.version + decision.events.length + 1,
      occurredAt: command.metadata.issuedAt,
      commandId: command.metadata.commandId,
    },
  };
  return { ...decision, events: [...decision.events, event] };
}
