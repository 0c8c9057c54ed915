import { UpstreamUnavailable } from "../execution-errors.ts";

/**
 * An executor step's RPC call on a Solana chain: a call that fails (unreachable, timeout, an error
 * answer) is a retryable UpstreamUnavailable naming the chain and the method, nothing known changed.
 */
export const solanaRpcCall =
  (chainId: number) =>
  async <T>(what: string, call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (err) {
      const why = err instanceof Error ? err.message.split("\n")[0] : String(err);
      throw new UpstreamUnavailable(`chain ${chainId}: ${what}: ${why}`, null, { cause: err });
    }
  };
