import type { ChainAdapter } from "./adapter.ts";

/**
 * What the gateway's Solana routes need of a Solana chain (docs/SOLANA.md), in types of no family
 * folder: the Solana adapter builds it (src/chains/solana/gateway-side.ts) and the gateway reaches
 * the chain only through it. Reads are one try each, bounded by a short timeout; an RPC that does not
 * answer rejects with ChainUnavailableError (the gateway answers 502 having changed nothing).
 */
export interface SolanaGatewaySide {
  readonly chainId: number;
  /** The relayer (base58): fee payer of every sweep and refund the service co-signs. */
  readonly feePayer: string;
  /** The service's vault (base58): where a sweep for an EVM destination sends the money (the fast fill). */
  readonly vault: string;
  /** The chain's USDC mint (base58). */
  readonly usdcMint: string;
  /**
   * The other chains a session here may settle to: where this chain's USDC can be delivered (the
   * fast fill), the money facts' `reaches` (src/chains/solana/money.ts).
   */
  readonly reaches: readonly number[];
  /** The canonical base58 spelling of a public key, or null when `raw` is not one. */
  parseAddress(raw: string): string | null;
  /** Whether `signature` (base58, 64 bytes) is `signer`'s ed25519 signature of `message`. */
  verifyMessage(signer: string, message: Uint8Array, signature: string): boolean;
  /**
   * A burner's bounce setup (base64 wire form) checked against this session, burner, relayer and mint
   * (docs/SOLANA.md, "The bounce"), and its blockhash still valid (a setup the chain would refuse is
   * never kept in place of one it would take): the refund address its statement names, or why it is
   * refused. Reads the chain.
   */
  checkBounceSetup(
    wire: string,
    expected: { sessionId: string; burner: string },
  ): Promise<{ ok: true; refundTo: string } | { ok: false; reason: string }>;
  /** The newest blockhash at `confirmed` and the last block height a transaction using it lands in. */
  latestBlockhash(): Promise<{ blockhash: string; lastValidBlockHeight: number }>;
  /**
   * Whether `transaction` (base64, burner-signed) is exactly the sweep of `legs` out of `burner`'s
   * `token` with the relayer as fee payer (src/chains/solana/sweep.ts), and can land now: its
   * blockhash is still valid and every USDC recipient has its token account. Reads the chain.
   */
  checkSweep(
    transaction: string,
    expected: {
      burner: string;
      token: string;
      legs: ReadonlyArray<{ to: string; amount: bigint }>;
      /** Flow D: the sweep opens the first leg's USDC account, the fee payer paying its rent. */
      openFirstLeg?: boolean;
    },
  ): Promise<{ ok: true } | { ok: false; reason: string }>;
  /**
   * A payer's refund (docs/SOLANA.md, "The payer's refund"): whether `transaction` (base64,
   * burner-signed) moves the burner's whole balance of `token` as the chain shows it now to `to` and
   * does nothing else (the sweep's check, with that one leg). `empty`: the burner holds none of it.
   * Reads the chain.
   */
  /** The burner's signature (base58) on a transaction (base64 wire form); null when it carries none. */
  burnerSignature(transaction: string, burner: string): string | null;
  checkRefund(
    transaction: string,
    expected: { burner: string; token: string; to: string },
  ): Promise<{ ok: true; amount: bigint; signature: string } | { ok: false; reason: string; empty: boolean }>;
}

/**
 * The Solana side of each Solana adapter that has one. The generic ChainAdapter carries no family's
 * extras: the Solana routes find their side here, by the adapters the process holds.
 */
const sides = new WeakMap<ChainAdapter, SolanaGatewaySide>();

/** Gives a Solana adapter the side its routes use (src/chains/solana/adapter.ts). */
export function withSolanaSide(adapter: ChainAdapter, side: SolanaGatewaySide): void {
  sides.set(adapter, side);
}

/** The Solana routes' side: that of the one Solana chain configured (docs/SOLANA.md), if it has one. */
export function solanaSideOf(adapters: readonly ChainAdapter[]): SolanaGatewaySide | undefined {
  for (const adapter of adapters) {
    const side = sides.get(adapter);
    if (side) return side;
  }
  return undefined;
}
