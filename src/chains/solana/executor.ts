import { Connection, type Keypair } from "@solana/web3.js";
import type { ChainExecutor } from "../adapter.ts";
import { StepRefused } from "../execution-errors.ts";
import { createSolanaAnnouncer } from "./announce.ts";
import { createSolanaBouncer } from "./bounce-executor.ts";
import { createSweepRelay } from "./sweep-relay.ts";

/**
 * The Solana chain's executor: it relays what a Solana burner signed (the sweep and the bounce
 * setup, co-signed as fee payer), bounces an ended session's USDC as the delegate that setup
 * approved (docs/SOLANA.md, "The bounce") and announces Flow D payments with a memo
 * (docs/STEALTH.md). The EVM steps (delegate sweeps, bridge relays, EIP-712 refunds, subscriptions)
 * have no meaning here; the session core never sends them to a Solana chain, and one that arrived
 * anyway is refused at once, before anything is signed.
 */
export function createSolanaExecutor(deps: {
  chainId: number;
  rpcUrl: string;
  relayer: Keypair;
  /** The chain's USDC mint: the only token a bounce moves. */
  usdcMint: string;
  signal: AbortSignal;
}): ChainExecutor {
  const notHere = (what: string) => async (): Promise<never> => {
    throw new StepRefused(`${what} is an EVM step: chain ${deps.chainId} is a Solana chain`, null);
  };
  const connection = new Connection(deps.rpcUrl, { commitment: "confirmed" });
  return {
    sweep: notHere("a delegate sweep"),
    attestation: notHere("a bridge attestation"),
    relay: notHere("a bridge relay"),
    refund: notHere("an EIP-712 refund"),
    refundAll: notHere("a standing refund"),
    subscriptionCall: notHere("a subscription call"),
    // Nothing of a Solana step waits at a nonce: a sweep whose blockhash expires can never land.
    cancel: async () => null,
    relaySolanaSweep: createSweepRelay(deps),
    bouncer: createSolanaBouncer({ connection, relayer: deps.relayer, mint: deps.usdcMint }),
    announce: createSolanaAnnouncer({ ...deps, connection }),
  };
}
