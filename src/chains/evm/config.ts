import { z } from "zod";

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
  /** The SubscriptionManager subscriptions are signed for and charged through, when the chain has one. */
  subscriptions: evmAddressSchema.optional(),
  /** Health turns 503 when the relayer holds less than this (wei, decimal string). */
  minRelayerBalanceWei: z.string().regex(/^\d+$/).default("10000000000000000"),
});
export type EvmChainConfig = z.infer<typeof evmChainSchema>;
