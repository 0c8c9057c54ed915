import { type Address, type PublicClient, parseAbi, BaseError as ViemBaseError, zeroAddress } from "viem";
import { uniswapV2RouterAbi } from "../../chains/evm/uniswap-v2.ts";
import { ClientError } from "../errors.ts";

// The three immutables of the delegate the burner is delegated to: the sweep swaps through exactly
// this router and path, so the payer's own quote reads the same pool the Intent's min_out guards.
const delegateDexAbi = parseAbi([
  "function ROUTER() view returns (address)",
  "function WETH() view returns (address)",
  "function USDC() view returns (address)",
]);

export interface QuoteOnChainParameters {
  /** The delegate the burner's EIP-7702 authorization names (`burner.eip7702Auth.address`). */
  delegate: Address;
  /** The detected token (the zero address for the coin, as the Session object spells it). */
  token: Address;
  /** The detected amount, in the token's base units. */
  amountIn: bigint;
}

/** The USDC the delegate's Uniswap V2 router would give for `amountIn` now (`getAmountsOut`). */
export type QuoteOnChainReturnType = bigint;
/** `network_error` (retryable): the payer's RPC did not answer, or the pool has no route. */
export type QuoteOnChainErrorType = ClientError<"network_error">;

/**
 * The payer's own quote of a swapped deposit, read from the source chain through the payer's RPC
 * (not the service's): `signIntent` refuses a `min_out` the service suggests that is far below it,
 * so a gateway that lies cannot have the sweep sell the deposit for nothing.
 *
 * @example
 * import { createPublicClient, http } from "viem";
 * import { quoteOnChain } from "deposit-settlement/client";
 * const publicClient = createPublicClient({ transport: http("https://rpc.example") });
 * const out = await quoteOnChain(publicClient, { delegate, token: dai, amountIn: 10n ** 18n });
 */
export async function quoteOnChain(
  publicClient: Pick<PublicClient, "readContract">,
  params: QuoteOnChainParameters,
): Promise<QuoteOnChainReturnType> {
  try {
    const read = (functionName: "ROUTER" | "WETH" | "USDC") =>
      publicClient.readContract({ address: params.delegate, abi: delegateDexAbi, functionName });
    const [router, weth, usdc] = await Promise.all([read("ROUTER"), read("WETH"), read("USDC")]);
    const tokenIn = params.token.toLowerCase() === zeroAddress ? weth : params.token;
    const amounts = await publicClient.readContract({
      address: router,
      abi: uniswapV2RouterAbi,
      functionName: "getAmountsOut",
      args: [params.amountIn, [tokenIn, usdc]],
    });
    const out = amounts[amounts.length - 1];
    if (out === undefined) throw new Error("getAmountsOut answered no amounts");
    return out;
  } catch (err) {
    const why = err instanceof ViemBaseError ? err.shortMessage : String(err);
    throw new ClientError("network_error", `no on-chain quote for the deposit: ${why}`, {
      cause: err,
      retryable: true,
    });
  }
}
