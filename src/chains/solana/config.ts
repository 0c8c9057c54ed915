import { getBase58Encoder } from "@solana/kit";
import { NATIVE_MINT } from "@solana/spl-token";
import { Keypair, PublicKey } from "@solana/web3.js";
import { z } from "zod";
import type { ChainAddress, DepositTerms } from "../../domain/types.ts";

/** A Solana address as the service stores it: base58 of 32 bytes, spelled as PublicKey spells it. */
export const parseSolanaAddress = (raw: string): ChainAddress | null => {
  try {
    const key = new PublicKey(raw);
    // PublicKey also takes other spellings of the same bytes (e.g. leading '1's); keep one.
    return key.toBase58() === raw ? raw : null;
  } catch {
    return null;
  }
};

export const solanaAddressSchema = z
  .string()
  .refine((v) => parseSolanaAddress(v) !== null, "must be a base58 Solana address");

/** A keypair from its base58 64-byte secret key (what `solana-keygen` and wallets export), or null. */
export function keypairFromBase58(secret: string): Keypair | null {
  try {
    return Keypair.fromSecretKey(new Uint8Array(getBase58Encoder().encode(secret)));
  } catch {
    return null;
  }
}

/**
 * The interface's chain ids are integers; Solana has none of its own, so these are ours: mainnet
 * and the local node (deploy/local/solana/).
 */
export const SOLANA_MAINNET_CHAIN_ID = 792_703_809;
export const SOLANA_LOCAL_CHAIN_ID = 792_703_810;

/** The token a SOL (lamports) deposit is recorded with: the native mint, as Solana APIs spell SOL. */
export const SOL_TOKEN: ChainAddress = NATIVE_MINT.toBase58();

/** 0.01 USDC (6 decimals): less is dust, not a payment. */
export const DEFAULT_MIN_USDC_SOLANA = 10_000n;
/** 0.0001 SOL: less is dust, not a payment. */
export const DEFAULT_MIN_LAMPORTS = 100_000n;

/** One Solana cluster the service indexes (an entry of CHAINS with `family: "solana"`; docs/SOLANA.md). */
export const solanaChainSchema = z.object({
  name: z.string().min(1),
  /** The interface's chain ids are integers: mainnet 792703809, the local node 792703810. */
  chainId: z.number().int().positive(),
  rpcUrl: z.string().url(),
  /** PubSub endpoint; unset: web3.js derives it from rpcUrl. */
  wsUrl: z.string().url().optional(),
  /** The cluster's USDC mint (6 decimals). */
  usdcMint: solanaAddressSchema,
  /** The fee payer of every relayed transaction, as a base58 64-byte secret key. Optional for read-only roles. */
  relayer: z
    .string()
    .refine((v) => keypairFromBase58(v) !== null, "must be a base58 64-byte secret key")
    .optional(),
  /** The service's vault: where a sweep for an EVM destination sends the money (docs/SOLANA.md). */
  vault: solanaAddressSchema.optional(),
  /**
   * How many slots `finalized` usually trails `confirmed` (mainnet ~32, the local node 8). Only an
   * estimate for reports: the indexer reads the finalized slot from the node.
   */
  finalityLagSlots: z.number().int().min(0).default(32),
  /** Tokens taken as payment, each with its least amount (base units); `"native"` is SOL (lamports). */
  acceptedTokens: z
    .array(
      z.object({
        token: z.union([z.literal("native"), solanaAddressSchema]),
        minAmount: z.string().regex(/^\d+$/, "must be a decimal integer string").default("1"),
      }),
    )
    .optional(),
  /** The least a delivery from another chain into this one may carry (USDC base units, decimal string; default 0.10 USDC). */
  minDelivery: z.string().regex(/^\d+$/, "must be a decimal integer string").optional(),
  /** Health turns 503 when the relayer holds less than this (lamports, decimal string). */
  minRelayerBalanceLamports: z.string().regex(/^\d+$/).default("50000000"),
  /**
   * What 1 SOL is worth in USDC base units (decimal string), for the relayer's ledger
   * (src/chains/solana/cost.ts). No pool prices SOL on the local stack, so it is a fact the operator
   * keeps current; unset: 150 USDC.
   */
  nativePrice: z.string().regex(/^\d+$/, "must be a decimal integer string").optional(),
  /** The priority fee the relayer adds to each transaction it pays for (lamports, decimal string; unset: 0). */
  priorityFeeLamports: z.string().regex(/^\d+$/, "must be a decimal integer string").optional(),
});
export type SolanaChainConfig = z.infer<typeof solanaChainSchema>;

/** The operator's terms for each token on the chain (unset: its USDC and SOL at the default minimums). */
export function solanaDepositTerms(chain: SolanaChainConfig): (token: ChainAddress) => DepositTerms {
  const listed = chain.acceptedTokens ?? [
    { token: chain.usdcMint, minAmount: String(DEFAULT_MIN_USDC_SOLANA) },
    { token: "native" as const, minAmount: String(DEFAULT_MIN_LAMPORTS) },
  ];
  const minimums = new Map<string, bigint>(
    listed.map((t) => [t.token === "native" ? SOL_TOKEN : t.token, BigInt(t.minAmount)]),
  );
  const refused: DepositTerms = { accepted: false, minAmount: 0n };
  return (token) => {
    const minAmount = minimums.get(token); // base58: exact spelling
    return minAmount === undefined ? refused : { accepted: true, minAmount };
  };
}
