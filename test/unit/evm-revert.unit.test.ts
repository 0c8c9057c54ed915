import {
  ContractFunctionExecutionError,
  ContractFunctionRevertedError,
  encodeErrorResult,
  HttpRequestError,
  RpcRequestError,
} from "viem";
import { describe, expect, it } from "vitest";
import { burnerDelegateAbi } from "../../src/chains/evm/abi.ts";
import { revertMessage } from "../../src/chains/evm/settle/revert.ts";

const reverted = (data: `0x${string}`) =>
  new ContractFunctionExecutionError(
    new ContractFunctionRevertedError({ abi: burnerDelegateAbi, data, functionName: "sweep" }),
    { abi: burnerDelegateAbi, functionName: "sweep", args: [] },
  );

describe("revertMessage", () => {
  it("names the delegate's custom error with its arguments", () => {
    const data = encodeErrorResult({ abi: burnerDelegateAbi, errorName: "BelowMinOut", args: [1n, 2n] });
    expect(revertMessage(reverted(data))).toBe("BelowMinOut(1, 2)");
  });

  it("gives a revert string as it is (the router's reason through the delegate)", () => {
    const data = encodeErrorResult({
      abi: [{ type: "error", name: "Error", inputs: [{ name: "message", type: "string" }] }],
      errorName: "Error",
      args: ["UniswapV2Router: INSUFFICIENT_OUTPUT_AMOUNT"],
    });
    expect(revertMessage(reverted(data))).toBe("UniswapV2Router: INSUFFICIENT_OUTPUT_AMOUNT");
  });

  it("decodes the raw revert data of a plain estimate (no ABI) with the contracts' errors", () => {
    const data = encodeErrorResult({ abi: burnerDelegateAbi, errorName: "NothingToMove" });
    const err = new RpcRequestError({
      body: {},
      url: "http://node",
      error: { code: 3, message: "execution reverted", data },
    });
    expect(revertMessage(err)).toBe("NothingToMove()");
  });

  it("is null for failures that are not reverts, which are retried instead", () => {
    expect(revertMessage(new HttpRequestError({ url: "http://node", details: "ECONNREFUSED" }))).toBeNull();
    expect(revertMessage(new Error("anything"))).toBeNull();
  });
});
