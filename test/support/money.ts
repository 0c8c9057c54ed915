import { evmCosts } from "../../src/chains/evm/cost.ts";
import { solanaCosts } from "../../src/chains/solana/cost.ts";
import { decide, type SessionInput, type SessionState, sessionDeciderWith } from "../../src/domain/index.ts";
import { DEFAULT_SESSION_POLICY, type SessionPolicy } from "../../src/domain/relayer-work.ts";
import { NATIVE_TOKEN } from "../../src/domain/types.ts";
import { type ChainMoney, DEFAULT_MIN_DELIVERY } from "../../src/domain/value.ts";

/**
 * The money facts of the chains the unit tests use, as src/chains/money.ts would give them for a
 * configuration of these chains: EVM chains swap on chain and reach each other (CCTP); the local
 * Solana chain swaps nothing and reaches the EVM chains by the fast fill. Their costs are the
 * families' estimators at the local stack's prices (1 gwei and 3,000 USDC per ETH; 150 USDC per SOL).
 */

/** The native mint: a SOL deposit's token. */
export const TEST_SOL = "So11111111111111111111111111111111111111112";

/** The Solana chain's USDC mint in the unit tests. */
export const TEST_SOLANA_USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
export const TEST_SOLANA_CHAIN_ID = 792703810;
const EVM_CHAIN_IDS = [1, 2, 10, 8453, 42161, 31337, 31338];

const evm = (chainId: number): ChainMoney => ({
  chainId,
  settlementToken: null,
  settlementDecimals: 6,
  swapsOnChain: true,
  reaches: EVM_CHAIN_IDS.filter((id) => id !== chainId),
  minDelivery: DEFAULT_MIN_DELIVERY,
  dustFloors: {},
  nativeToken: NATIVE_TOKEN,
  costs: evmCosts({}),
});

export const TEST_CHAINS: readonly ChainMoney[] = [
  ...EVM_CHAIN_IDS.map(evm),
  {
    chainId: TEST_SOLANA_CHAIN_ID,
    settlementToken: TEST_SOLANA_USDC,
    settlementDecimals: 6,
    swapsOnChain: false,
    reaches: EVM_CHAIN_IDS,
    minDelivery: DEFAULT_MIN_DELIVERY,
    // The default accepted minimums: 0.01 USDC, 0.0001 SOL.
    dustFloors: { [TEST_SOLANA_USDC]: 10_000n, [TEST_SOL]: 100_000n },
    nativeToken: TEST_SOL,
    costs: solanaCosts({}),
  },
];

export const TEST_POLICY: SessionPolicy = { ...DEFAULT_SESSION_POLICY, chains: TEST_CHAINS };

/** The session core under the test chains' money facts. */
export const testDecide = (command: SessionInput, state: SessionState, policy: SessionPolicy = TEST_POLICY) =>
  decide(command, state, policy);
export const testSessionDecider = sessionDeciderWith(TEST_POLICY);
