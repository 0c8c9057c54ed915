import { z } from "zod";
import { type DepositTerms, NATIVE_TOKEN } from "../../domain/types.ts";

/** An EVM address as the service stores it: lower-case 0x hex, 20 bytes. */
export type EvmAddress = `0x${string}`;

export const evmAddressSchema = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x address")
  .transform((v) => v.toLowerCase() as EvmAddress);

/** One EVM chain the service indexes and settles on (an entry of CHAINS with `family: "evm"`). */
export const evmChainSchema = z.object({
  name: z.string().min(1),
  chainId: z.number().int().positive(),
  rpcUrl: z.string().url(),
  /** The delegate contract every burner authorization must target on this chain. */
  delegate: evmAddressSchema,
  /** Blocks a transfer must be buried under before it counts. */
  confirmations: z.number().int().min(0).default(2),
  /** Relayer that pays gas; /health reports its balance. Optional for read-only roles. */
  relayer: z
    .object({
      address: evmAddressSchema,
      privateKey: z.string().regex(/^0x[0-9a-fA-F]{64}$/, "must be a 32-byte 0x hex key"),
    })
    .optional(),
  /** The chain's USDC-like token, when known (the local stack deploys one). */
  usdc: evmAddressSchema.optional(),
  /**
   * The chain's Circle CCTP V2 contracts and domain, when it bridges: the executor burns through the
   * delegate (which names TokenMessengerV2 itself) and relays `receiveMessage` to this transmitter.
   */
  cctp: z
    .object({
      domain: z.number().int().nonnegative(),
      messageTransmitter: evmAddressSchema,
      tokenMessenger: evmAddressSchema,
    })
    .optional(),
  /**
   * The tokens the operator takes as payment on this chain, each with the least amount (base units,
   * decimal string) that counts; `"native"` is the chain's coin. Any other transfer into a burner is
   * recorded as an unsupported deposit (docs/INDEXER.md). Unset: the chain's USDC and its coin, at
   * DEFAULT_MIN_USDC and DEFAULT_MIN_NATIVE.
   */
  acceptedTokens: z
    .array(
      z.object({
        token: z.union([z.literal("native"), evmAddressSchema]),
        minAmount: z.string().regex(/^\d+$/, "must be a decimal integer string").default("1"),
      }),
    )
    .optional(),
  /** The SubscriptionManager subscriptions are signed for and charged through, when the chain has one. */
  subscriptions: evmAddressSchema.optional(),
  /** The StealthRelay gasless stealth withdrawals go through (docs/STEALTH.md), when the chain has one. */
  stealthRelay: evmAddressSchema.optional(),
  /**
   * The least a delivery from another chain into this one may carry (USDC base units, decimal
   * string; default 0.10 USDC): the relayer's transaction here (the bridge relay or the fast fill) costs gas, so less
   * is refused at commit (docs/SECURITY.md, "One money policy").
   */
  minDelivery: z.string().regex(/^\d+$/, "must be a decimal integer string").optional(),
  /** Health turns 503 when the relayer holds less than this (wei, decimal string). */
  minRelayerBalanceWei: z.string().regex(/^\d+$/).default("10000000000000000"),
  /**
   * What 1 ETH (the chain's coin) is worth in USDC base units (decimal string), for the relayer's
   * ledger (src/chains/evm/cost.ts); unset: 3,000 USDC, the local stack's WETH/USDC pool price.
   */
  nativePrice: z.string().regex(/^\d+$/, "must be a decimal integer string").optional(),
  /** The gas price the relayer's actions are estimated at (wei, decimal string); unset: 1 gwei, the local chains'. */
  gasPriceWei: z.string().regex(/^\d+$/, "must be a decimal integer string").optional(),
});
export type EvmChainConfig = z.infer<typeof evmChainSchema>;

/** 0.01 USDC (6 decimals): less is dust, not a payment. */
export const DEFAULT_MIN_USDC = 10_000n;
/** 0.00001 of an 18-decimals coin (1e13 wei): less is dust, not a payment. */
export const DEFAULT_MIN_NATIVE = 10_000_000_000_000n;

/** The chain's accepted tokens as configured, or the default: its USDC and its coin. */
export function acceptedTokensOf(
  chain: EvmChainConfig,
): Array<{ token: EvmAddress | "native"; minAmount: string }> {
  return (
    chain.acceptedTokens ?? [
      ...(chain.usdc ? [{ token: chain.usdc, minAmount: String(DEFAULT_MIN_USDC) }] : []),
      { token: "native" as const, minAmount: String(DEFAULT_MIN_NATIVE) },
    ]
  );
}

/**
 * The operator's terms for each token on the chain, as the indexer attaches them to every transfer
 * it publishes (src/domain/acceptance.ts applies them). A token not listed is not accepted.
 */
export function depositTermsOf(chain: EvmChainConfig): (token: string) => DepositTerms {
  const listed = acceptedTokensOf(chain);
  const minimums = new Map<string, bigint>(
    listed.map((t) => [t.token === "native" ? NATIVE_TOKEN : t.token, BigInt(t.minAmount)]),
  );
  const refused: DepositTerms = { accepted: false, minAmount: 0n };
  return (token) => {
    const minAmount = minimums.get(token.toLowerCase());
    return minAmount === undefined ? refused : { accepted: true, minAmount };
  };
}
