import { DEFAULT_MIN_NATIVE, DEFAULT_MIN_USDC, type EvmChainConfig } from "./config.ts";

/** An anvil chain as the local stack's file names it (src/app/infra.ts reads the file). */
export interface LocalEvmChain {
  name: string;
  chainId: number;
  rpcUrl: string;
  delegate: string;
  usdc: string;
  relayer: { address: string; privateKey: string };
  subscriptions?: string | undefined;
  stealthRelay?: string | undefined;
  dex?: { weth: string; dai: string } | undefined;
  cctp?: { domain: number; messageTransmitter: string; tokenMessenger: string } | undefined;
}

/** 0.01 of the local TestDAI (18 decimals, a dollar in its seeded pool). */
const MIN_DAI = 10_000_000_000_000_000n;

/**
 * A local anvil chain as an EVM chain entry. It accepts what the local stack can settle: USDC, the
 * tokens its DEX swaps to USDC (DAI, WETH) and the coin, each above a dust minimum worth about a cent.
 */
export const localEvmChain = (
  c: LocalEvmChain,
  confirmations: number,
): EvmChainConfig & { family: "evm" } => ({
  family: "evm",
  name: c.name,
  chainId: c.chainId,
  rpcUrl: c.rpcUrl,
  delegate: c.delegate.toLowerCase() as `0x${string}`,
  usdc: c.usdc.toLowerCase() as `0x${string}`,
  confirmations,
  relayer: {
    address: c.relayer.address.toLowerCase() as `0x${string}`,
    privateKey: c.relayer.privateKey,
  },
  minRelayerBalanceWei: "10000000000000000",
  acceptedTokens: [
    { token: c.usdc.toLowerCase() as `0x${string}`, minAmount: String(DEFAULT_MIN_USDC) },
    ...(c.dex
      ? [
          { token: c.dex.dai.toLowerCase() as `0x${string}`, minAmount: String(MIN_DAI) },
          { token: c.dex.weth.toLowerCase() as `0x${string}`, minAmount: String(DEFAULT_MIN_NATIVE) },
        ]
      : []),
    { token: "native", minAmount: String(DEFAULT_MIN_NATIVE) },
  ],
  ...(c.subscriptions ? { subscriptions: c.subscriptions.toLowerCase() as `0x${string}` } : {}),
  ...(c.stealthRelay ? { stealthRelay: c.stealthRelay.toLowerCase() as `0x${string}` } : {}),
  ...(c.cctp
    ? {
        cctp: {
          domain: c.cctp.domain,
          messageTransmitter: c.cctp.messageTransmitter.toLowerCase() as `0x${string}`,
          tokenMessenger: c.cctp.tokenMessenger.toLowerCase() as `0x${string}`,
        },
      }
    : {}),
});
