import * as f from "../record-fields/fields.ts";
import { union } from "../record-fields/unions.ts";
import { authorization, intent, signedRefund } from "./shared.ts";
import { mandate } from "./subscription-fields.ts";

/** executor.commands: work for a chain's executor; `command.type` is the Avro union branch. */
export const executorCommand = f.record({
  /** Idempotency key: the executor submits each command id at most once. */
  commandId: f.string,
  /** Unix ms. */
  issuedAt: f.number,
  /** null for subscription charges. */
  sessionId: f.nullable(f.string),
  chainId: f.number,
  command: union({
    Sweep: { burner: f.address, token: f.address, amount: f.amount },
    Refund: { burner: f.address, ...signedRefund, auth: f.nullable(authorization) },
    RefundAll: {
      burner: f.address,
      token: f.address,
      to: f.address,
      deadline: f.number,
      signature: f.hex,
      auth: f.nullable(authorization),
    },
    Charge: { subscriptionId: f.string, periodIndex: f.number, token: f.address, amount: f.amount },
    Settle: { burner: f.address, auth: authorization, intent, signature: f.hex, feeBps: f.number },
    // Subscriptions (src/domain/subscription/): charged and canceled through SubscriptionManager.
    ChargeSubscription: {
      subscriptionId: f.string,
      manager: f.address,
      mandate,
      signature: f.hex,
      periodIndex: f.number,
      attempt: f.number,
      feeBps: f.number,
    },
    CancelMandate: { subscriptionId: f.string, manager: f.address, mandate, signature: f.hex },
    // The fast fill (docs/SOLANA.md): the relayer's USDC on this (EVM) chain pays for money in a vault elsewhere.
    FastFill: { to: f.address, amount: f.amount, sourceChainId: f.number, sourceTx: f.txId },
    // A Solana-origin session's sweep (src/domain/solana-sweep.ts), relayed on its Solana chain.
    RelaySolanaSweep: {
      transaction: f.string,
      amountIn: f.amount,
      feeAmount: f.amount,
      appFeeAmount: f.amount,
      deliveredAmount: f.amount,
      bridged: f.boolean,
    },
    // A Solana session's bounce (docs/SOLANA.md, "The bounce"): the burner-signed setup to co-sign
    // and relay at registration, and the relayer's transfer of the burner's whole balance of `mint`.
    SolanaBounceSetup: { burner: f.chainAddress, transaction: f.string },
    SolanaBounce: { burner: f.chainAddress, mint: f.chainAddress, to: f.chainAddress },
    // A Solana payer's refund (POST /sessions/:id/solana-refund), burner-signed, to co-sign and relay.
    RelaySolanaRefund: { burner: f.chainAddress, transaction: f.string },
    // A Flow D session's announcement (docs/STEALTH.md) on its destination chain.
    Announce: {
      scheme: f.string,
      stealthAddress: f.chainAddress,
      ephemeralPubkey: f.string,
      viewTag: f.number,
    },
  }),
});
export type ExecutorCommand = f.Infer<typeof executorCommand>;
