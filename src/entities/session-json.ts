import { gunzipSync, gzipSync } from "node:zlib";
import type { Session } from "../domain/types.ts";

/**
 * Session states as JSON for snapshots and the read model. bigint has no JSON form, so it is
 * written as {"$bigint":"<decimal>"} and revived on the way back.
 */
export function stateToJson(state: Session): string {
  // The bigint fields by name, then JSON.stringify without a replacer: a replacer is called for every
  // key of every deposit and made this several times slower, on the projector's path for every
  // event. A bigint added to Session without a line here makes JSON.stringify throw, not drop it.
  return JSON.stringify({
    ...state,
    deposits: state.deposits.map((d) => ({ ...d, amount: big(d.amount), blockNumber: big(d.blockNumber) })),
    unsupportedDeposits: state.unsupportedDeposits.map((d) => ({
      ...d,
      amount: big(d.amount),
      blockNumber: big(d.blockNumber),
    })),
    swapOutputAmount: bigOrNull(state.swapOutputAmount),
    feeAmount: bigOrNull(state.feeAmount),
    bridgeAmount: bigOrNull(state.bridgeAmount),
    expectedAmount: bigOrNull(state.expectedAmount),
    appFeeAmount: bigOrNull(state.appFeeAmount),
    settledAmount: bigOrNull(state.settledAmount),
    solanaSweep: state.solanaSweep && {
      ...state.solanaSweep,
      legs: state.solanaSweep.legs.map((l) => ({ ...l, amount: big(l.amount) })),
      amountIn: big(state.solanaSweep.amountIn),
      feeAmount: big(state.solanaSweep.feeAmount),
      appFeeAmount: big(state.solanaSweep.appFeeAmount),
      deliveredAmount: big(state.solanaSweep.deliveredAmount),
    },
    commitment: state.commitment && {
      ...state.commitment,
      intent: {
        ...state.commitment.intent,
        minOut: big(state.commitment.intent.minOut),
        maxIn: big(state.commitment.intent.maxIn),
      },
    },
    refunds: state.refunds.map((r) => ({ ...r, amount: bigOrNull(r.amount) })),
    gasSpent: state.gasSpent.map((g) => ({
      ...g,
      gasUsed: big(g.gasUsed),
      feeWei: big(g.feeWei),
      cost: bigOrNull(g.cost),
    })),
  });
}

const big = (v: bigint) => ({ $bigint: v.toString() });
const bigOrNull = (v: bigint | null) => (v === null ? null : big(v));

export function stateFromJson(json: string): Session {
  const state = JSON.parse(json, (_k, v) =>
    v !== null && typeof v === "object" && typeof v.$bigint === "string" && Object.keys(v).length === 1
      ? BigInt(v.$bigint)
      : v,
  ) as Session;
  // Snapshots written before settlement lack its fields: they read as a session that has none yet.
  state.expectedAmount ??= null;
  state.commitment ??= null;
  state.appFeeAmount ??= null;
  state.settledAmount ??= null;
  state.refunds ??= [];
  // ... and those written before the relayer's gas was recorded, none.
  state.gasSpent ??= [];
  // ... and those written before the ledger priced each fee, no cost (spentBy prices them).
  for (const g of state.gasSpent) g.cost ??= null;
  // ... and those written before checkout lack its two.
  state.pinnedDestinations ??= [];
  state.clientSecretHash ??= null;
  // ... and those written before unsupported deposits were told apart have none.
  state.unsupportedDeposits ??= [];
  // ... and those written before Solana's finality was tracked await none.
  state.awaitingFinality ??= [];
  // ... and those written before Solana sessions are EVM sessions.
  state.originChainId ??= null;
  state.solanaSweep ??= null;
  state.refundAddress ??= null;
  // ... and those written before the Solana bounce have no bounce setup.
  state.bounceTo ??= null;
  // ... and those written before the setup waited for a deposit keep none: theirs was relayed at once.
  state.bounceSetup ??= null;
  // ... and those written before Flow D have no stealth destination.
  state.stealthDestinations ??= [];
  state.stealthAnnounced ??= [];
  // ... and those written before a given-up announcement was recorded, none.
  state.stealthAnnounceFailed ??= [];
  return state;
}

/** A partition's states as gzip of JSON lines. */
export function packStates(states: Iterable<Session>): Buffer {
  const lines: string[] = [];
  for (const s of states) lines.push(stateToJson(s));
  return gzipSync(Buffer.from(lines.join("\n")), { level: 1 });
}

export function unpackStates(blob: Buffer): Session[] {
  const text = gunzipSync(blob).toString("utf8");
  return text.length === 0 ? [] : text.split("\n").map(stateFromJson);
}
