import { getAssociatedTokenAddressSync } from "@solana/spl-token";
import { Connection, PublicKey } from "@solana/web3.js";
import type { ChainAddress } from "../../domain/types.ts";
import type { GatewayChain, SignedMessage, Verdict } from "../adapter.ts";
import { ChainUnavailableError } from "../gateway-chains.ts";
import { parseSolanaAddress, SOL_TOKEN, type SolanaChainConfig } from "./config.ts";

/** A request path waits this long for the RPC, then answers 502. */
const RPC_TIMEOUT_MS = 5_000;

/**
 * The family-neutral gateway side of a Solana chain (GatewayChain): balances read through an
 * unmodified web3.js Connection, one try each. Solana burners delegate nothing and sign none of the
 * EVM messages (EIP-7702 authorizations, EIP-712 intents and refunds): those checks fail as for a
 * wrong signature, so an EVM-shaped request naming this chain changes nothing. The Solana routes
 * have a side of their own (src/chains/solana-side.ts, built by ./gateway-side.ts).
 */
export function createSolanaGatewayChain(chain: SolanaChainConfig): GatewayChain {
  const connection = new Connection(chain.rpcUrl, {
    commitment: "confirmed",
    disableRetryOnRateLimit: true,
    fetch: (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(RPC_TIMEOUT_MS) }),
  });
  const read = async <T>(what: () => Promise<T>): Promise<T> => {
    try {
      return await what();
    } catch (err) {
      const why = err instanceof Error ? err.message.split("\n")[0] : String(err);
      throw new ChainUnavailableError(`chain ${chain.chainId}'s RPC did not answer: ${why}`, { cause: err });
    }
  };
  return {
    burnerDelegate: null,
    usdc: chain.usdcMint,
    async balance(address: ChainAddress, token?: ChainAddress) {
      const owner = parseSolanaAddress(address);
      if (owner === null) return null;
      if (token === undefined || token === SOL_TOKEN)
        return BigInt(await read(() => connection.getBalance(new PublicKey(owner), "confirmed")));
      const mint = parseSolanaAddress(token);
      if (mint === null) return null;
      const ata = getAssociatedTokenAddressSync(new PublicKey(mint), new PublicKey(owner), true);
      // No token account yet: it holds nothing (a read that answered all the same).
      const info = await read(() => connection.getAccountInfo(ata, "confirmed"));
      if (info === null) return 0n;
      const { value } = await read(() => connection.getTokenAccountBalance(ata, "confirmed"));
      return BigInt(value.amount);
    },
    // Nothing is swapped on Solana: only its USDC settles.
    quote: async (token) => (token === chain.usdcMint ? { kind: "usdc" } : { kind: "no_route" }),
    // Only USDC settles on Solana (quote above), with its 6 decimals.
    payTokens: async () => [{ token: chain.usdcMint, symbol: "USDC", decimals: 6 }],
    // No gas market the settlement routes price on Solana (a signature's fee is fixed, paid in SOL).
    gasValue: async () => null,
    verify: async (_signer, signed) => notSolanas(signed),
    verifierWarning: null,
    subscriptions: null,
  };
}

/** Every message the EVM routes check is EIP-712 or EIP-7702: a Solana burner signs none of them. */
function notSolanas(signed: SignedMessage): Verdict {
  const detail = "a Solana burner signs no EVM message";
  switch (signed.kind) {
    case "authorization":
      return { ok: false, code: "authorization_chain_unsupported", detail };
    case "intent":
      return { ok: false, code: "intent_invalid_signature", detail };
    case "standing_refund":
      return { ok: false, code: "standing_refund_invalid_signature", detail };
    case "refund":
      return { ok: false, code: "refund_invalid_signature", detail };
    default: {
      const never: never = signed;
      return never;
    }
  }
}
