import { BaseError, ContractFunctionRevertedError, decodeErrorResult, type Hex } from "viem";
import {
  burnerDelegateAbi,
  messageTransmitterV2Abi,
  stealthRelayAbi,
  subscriptionManagerAbi,
  testUsdcAbi,
  tokenMessengerV2Abi,
} from "../abi.ts";

/**
 * The contracts the executor calls: their custom errors, to name a revert a plain estimate reports as
 * bytes. TestUSDC brings the ERC-6093 token errors (ERC20InsufficientAllowance, ...) that OpenZeppelin
 * tokens revert with, which a subscription charge meets when the payer lowered its allowance.
 */
const KNOWN_ERRORS = [
  ...burnerDelegateAbi,
  ...messageTransmitterV2Abi,
  ...tokenMessengerV2Abi,
  ...subscriptionManagerAbi,
  ...stealthRelayAbi,
  ...testUsdcAbi,
];

/**
 * What a reverted call says, for an error_message a person can act on: the custom error with its
 * arguments (`BelowMinOut(1000, 2000)`), the revert string, or the bare fact. null when the error is
 * not a revert at all (an unreachable node, a timeout): those are retried, not reported as reverts.
 */
export function revertMessage(err: unknown): string | null {
  if (!(err instanceof BaseError)) return null;
  const reverted = err.walk((e) => e instanceof ContractFunctionRevertedError) as
    | ContractFunctionRevertedError
    | undefined;
  if (reverted) {
    const data = reverted.data;
    if (data && data.errorName !== "Error" && data.errorName !== "Panic") return named(data);
    return reverted.reason ?? reverted.shortMessage;
  }
  // The node's words are in the details, under a generic short message ("RPC Request failed.").
  if (!/revert/i.test(err.message)) return null;
  const text = err.details || err.shortMessage;
  // A plain estimate (no ABI): the node's error carries the revert data.
  const raw = err.walk((e) => typeof (e as { data?: unknown }).data === "string") as
    | { data?: Hex }
    | undefined;
  if (raw?.data && raw.data.length >= 10) {
    try {
      // decodeErrorResult knows Error(string) and Panic(uint256) besides the ABI's errors.
      const decoded = decodeErrorResult({ abi: KNOWN_ERRORS, data: raw.data }) as {
        errorName: string;
        args?: readonly unknown[];
      };
      return decoded.errorName === "Error" ? String(decoded.args?.[0]) : named(decoded);
    } catch {
      // not one of ours: the node's words below
    }
  }
  return text;
}

const named = (d: { errorName: string; args?: readonly unknown[] | undefined }) =>
  `${d.errorName}(${(d.args ?? []).map(String).join(", ")})`;
