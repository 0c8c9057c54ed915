// What test/e2e/stranger.e2e.test.ts asks of a chain family: each case of the stranger suite as the
// family plays it. A case is a list of requests the service must refuse (each costs the relayer
// nothing), an optional control it must carry out for exactly the transactions named, and checks of
// what the chains and the session show afterwards. The suite runs the same cases, in the same order,
// for every family; a family states its own refusals, never a weaker rule.
import type { Session } from "../../../src/client/index.ts";

/** An answer of the gateway: its status and JSON body. */
export interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: bodies are read field by field by the assertions
  body: any;
}

/** A request the service must refuse with this status and an error matching `why`. */
export interface Refusal {
  what: string;
  send(): Promise<Answer>;
  status: number;
  why: RegExp;
}

export const refusal = (what: string, send: Refusal["send"], status: number, why: RegExp): Refusal => ({
  what,
  send,
  status,
  why,
});

/**
 * The session has ended and no refund or bounce of it is still on its way: whatever the relayer was
 * asked to pay for it has landed, in the step that caused it.
 */
export const settledDown = (s: Session): boolean =>
  (s.status === "expired" || s.status === "bounced") &&
  s.refunds.every((r) => r.status === "confirmed" || r.status === "failed");

/** Work the service must do: exactly these relayer transactions per chain (the ledger's keys). */
export interface Control {
  what: string;
  transactions: Record<string, number>;
  /** The native coin those transactions cost, where the family fixes it (a Solana fee); else their fees. */
  native?: Record<string, bigint>;
  run(): Promise<void>;
}

export interface Case {
  /** Requests that succeed but must cost the relayer nothing (opening, paying, registering). */
  quiet?(): Promise<void>;
  refusals: Refusal[];
  control?: Control;
  /** What must hold afterwards: balances on the chains, the session's record. */
  check?(): Promise<void>;
}

/** The copied stealth withdrawal, as the chain recorded it. */
export interface CopyReport {
  /** Each copy the stranger sent: whether the chain took it (a landed copy that moved nothing still fails). */
  copies: { what: string; landed: boolean }[];
  /** USDC the stranger holds after its copies (it held none). */
  strangerUsdc: bigint;
  /** The relayer's own withdrawal: its transactions, and the USDC fee it was paid. */
  relayerTransactions: number;
  relayerFeeEarned: bigint;
  /** The fee the stealth key signed for the relayer. */
  signedFee: bigint;
  /** What the stealth address held, what it holds now, and what the destination received. */
  held: bigint;
  left: bigint;
  delivered: bigint;
}

export interface StrangerKit {
  family: string;
  /** Opens (and pays) the sessions of the later cases together, so their time to live runs at once. */
  setUp(): Promise<void>;
  /** Waits until every session of setUp has expired. */
  expired(): Promise<void>;
  registerWithoutDeposit(): Promise<Case>;
  fakeToken(): Promise<Case>;
  /** The real payment that follows the fake one, settled: the relayer's work for it, exactly. */
  fakeTokenThenRealPayment(): Promise<Case>;
  nativeToOtherFamily(): Promise<Case>;
  dustFastFill(): Promise<Case>;
  refundBeforeDeposit(): Promise<Case>;
  selfRefunds(): Promise<Case>;
  dustRefunds(): Promise<Case>;
  /**
   * The accepted minimum (0.01 USDC) paid, before expiry, to a session with bounce consent (EVM: a
   * standing refund; Solana: a registered bounce setup): the suite counts the relayer from the payment
   * through the expiry.
   */
  dustWithConsent(): { pay(): Promise<void>; check(): Promise<void> };
  /** The same dust after expiry, to another such session: a late deposit, which is what a bounce answers. */
  lateDust(): Promise<Case>;
  realRefund(): Promise<Case>;
  refundAllLoop(): Promise<Case>;
  /** The fake token's refund: what the family's refund rulebook does with an asset it never accepted. */
  fakeTokenRefund(): Promise<Case>;
  /** The native coin the other family's destination could not take: bounced or left, never filled. */
  nativeToOtherFamilyReturned(): Promise<Case>;
  copiedStealthWithdrawal(): Promise<CopyReport>;
  /** What that case costs the stack's relayer (the ledger's keys): the withdrawal the relayer sends there, if any. */
  copiedStealthTransactions: Record<string, number>;
}
