import {
  ContractFunctionRevertedError,
  ContractFunctionZeroDataError,
  createPublicClient,
  erc20Abi,
  http,
  BaseError as ViemBaseError,
} from "viem";
import type { Address } from "../../domain/types.ts";
import { NATIVE_TOKEN } from "../../domain/types.ts";
import type { GatewayChain, PayToken } from "../adapter.ts";
import { ChainUnavailableError } from "../gateway-chains.ts";
import { burnerDelegateAbi } from "./abi.ts";
import { acceptedTokensOf, type EvmChainConfig } from "./config.ts";
import { evmGatewaySubscriptions } from "./subscriptions/subscriptions.ts";
import { evmVerifier } from "./typed-data/authorization.ts";
import { recoverSigner } from "./typed-data/recover.ts";
import { uniswapV2RouterAbi } from "./uniswap-v2.ts";

/**
 * The gateway's side of one EVM chain (quote, RPC probe, signature checks), with a client that tries
 * once with a short timeout: a request path answers 502 quickly instead of waiting out viem's retries.
 *
 * The quote goes through the router, WETH and USDC the delegate itself is built with (its
 * immutables), so it prices exactly the swap the sweep makes; they are read once and kept
 * (immutables never change), and read again only after a failed attempt.
 */

/** Long enough for a healthy RPC under load, short enough for a client's 30 s request timeout. */
const READ_TIMEOUT_MS = 2000;

interface DelegateSetup {
  router: Address;
  weth: Address;
  usdc: Address;
}

export function createEvmGatewayChain(chain: EvmChainConfig): GatewayChain {
  const { chainId } = chain;
  const client = createPublicClient({
    transport: http(chain.rpcUrl, { retryCount: 0, timeout: READ_TIMEOUT_MS }),
  });
  let setup: Promise<DelegateSetup> | undefined;

  const setupOf = (): Promise<DelegateSetup> => {
    if (setup === undefined) {
      const read = (functionName: "ROUTER" | "WETH" | "USDC") =>
        client.readContract({ address: chain.delegate, abi: burnerDelegateAbi, functionName });
      const reading = Promise.all([read("ROUTER"), read("WETH"), read("USDC")]).then(
        ([router, weth, usdc]) => ({
          router: lower(router),
          weth: lower(weth),
          usdc: lower(usdc),
        }),
      );
      setup = reading;
      reading.catch(() => {
        if (setup === reading) setup = undefined;
      });
    }
    return setup;
  };

  // A token's symbol and decimals never change: read once, kept; a failed read is tried again next time.
  const described = new Map<Address, PayToken>();
  const describe = async (token: Address): Promise<PayToken | null> => {
    const known = described.get(token);
    if (known) return known;
    const read = <F extends "symbol" | "decimals">(functionName: F) =>
      client.readContract({ address: token, abi: erc20Abi, functionName });
    try {
      const [symbol, decimals] = await Promise.all([read("symbol"), read("decimals")]);
      const info = { token, symbol, decimals };
      described.set(token, info);
      return info;
    } catch {
      return null;
    }
  };

  return {
    burnerDelegate: chain.delegate,
    usdc: chain.usdc ?? null,
    verify: evmVerifier(chainId, chain.delegate),
    subscriptions: chain.subscriptions ? evmGatewaySubscriptions(chainId, chain.subscriptions) : null,
    verifierWarning:
      recoverSigner.loadError === null
        ? null
        : {
            // Still correct, ~35 times slower: POST /sessions then spends milliseconds of CPU per request.
            message:
              "the native secp256k1 binding did not load; signature checks use viem's JavaScript recovery",
            err: recoverSigner.loadError,
          },

    async quote(token, amountIn) {
      const { router, weth, usdc } = await unavailableOnRpcError(chainId, setupOf());
      if (lower(token) === usdc) return { kind: "usdc" };
      const path = [lower(token) === NATIVE_TOKEN ? weth : lower(token), usdc];
      try {
        const amounts = await client.readContract({
          address: router,
          abi: uniswapV2RouterAbi,
          functionName: "getAmountsOut",
          args: [amountIn, path],
        });
        const out = amounts[amounts.length - 1];
        if (out === undefined) throw new Error("getAmountsOut answered no amounts");
        return { kind: "quote", estimatedOut: out };
      } catch (err) {
        // UniswapV2Library reverts when the pair does not exist or has no reserves: no route, not an outage.
        if (isRevert(err)) return { kind: "no_route" };
        throw unavailable(chainId, err);
      }
    },

    async payTokens() {
      const usdc = chain.usdc;
      const rest = acceptedTokensOf(chain).flatMap(({ token }) => (token === usdc ? [] : [token]));
      const others = await Promise.all(
        rest.map((token) =>
          // The coin's symbol is not on chain; every chain the stack runs spends ether.
          token === "native" ? { token: NATIVE_TOKEN, symbol: "ETH", decimals: 18 } : describe(token),
        ),
      );
      // The configured USDC is the 6-decimals token every amount is written in: no read needed.
      const first = usdc ? [{ token: usdc, symbol: "USDC", decimals: 6 }] : [];
      return [...first, ...others.filter((t): t is PayToken => t !== null)];
    },

    async gasValue(token, gas) {
      const wei = gas * (await unavailableOnRpcError(chainId, client.getGasPrice()));
      if (lower(token) === NATIVE_TOKEN) return wei;
      const { router, weth, usdc } = await unavailableOnRpcError(chainId, setupOf());
      const path = lower(token) === usdc ? [weth, usdc] : [weth, usdc, lower(token)];
      try {
        const amounts = await client.readContract({
          address: router,
          abi: uniswapV2RouterAbi,
          functionName: "getAmountsOut",
          args: [wei, path],
        });
        return amounts[amounts.length - 1] ?? null;
      } catch (err) {
        // No pool on the path (the library reverts): the token has no price here.
        if (isRevert(err)) return null;
        throw unavailable(chainId, err);
      }
    },

    async balance(address, token = NATIVE_TOKEN) {
      const owner = address as Address;
      if (token === NATIVE_TOKEN)
        return unavailableOnRpcError(chainId, client.getBalance({ address: owner }));
      try {
        return await client.readContract({
          address: token as Address,
          abi: erc20Abi,
          functionName: "balanceOf",
          args: [owner],
        });
      } catch (err) {
        // The RPC answered, but `token` is no ERC-20 (no code, or balanceOf reverts): no balance to tell.
        if (isRevert(err) || isZeroData(err)) return null;
        throw unavailable(chainId, err);
      }
    },
  };
}

const lower = (a: string): Address => a.toLowerCase() as Address;

function isRevert(err: unknown): boolean {
  return err instanceof ViemBaseError && err.walk((e) => e instanceof ContractFunctionRevertedError) !== null;
}

function isZeroData(err: unknown): boolean {
  return err instanceof ViemBaseError && err.walk((e) => e instanceof ContractFunctionZeroDataError) !== null;
}

function unavailable(chainId: number, cause: unknown): ChainUnavailableError {
  const why = cause instanceof ViemBaseError ? cause.shortMessage : String(cause);
  return new ChainUnavailableError(`chain ${chainId}'s RPC did not answer: ${why}`, { cause });
}

/** Every failure of these reads is the RPC's: they call no code that could revert. */
async function unavailableOnRpcError<T>(chainId: number, read: Promise<T>): Promise<T> {
  try {
    return await read;
  } catch (err) {
    throw unavailable(chainId, err);
  }
}
