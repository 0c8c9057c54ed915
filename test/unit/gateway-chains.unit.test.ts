import type { Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import type { ChainAdapter, GatewayChain } from "../../src/chains/adapter.ts";
import { createEvmAdapter } from "../../src/chains/evm/adapter.ts";
import { standingRefundTypedData } from "../../src/chains/evm/typed-data/eip712.ts";
import { createGatewayChains } from "../../src/chains/gateway-chains.ts";
import { newBurner } from "../../src/client/burner.ts";
import type { Address, Authorization } from "../../src/domain/types.ts";

// The gateway's view of the chains: every request's chain picked by id among the adapters, each
// signature checked by the adapter of the chain it is for. Real EVM adapters (their checks are local,
// no RPC is asked), and a stand-in for a family whose burners delegate nothing.

const DELEGATE: Address = "0x1111111111111111111111111111111111111111";
const USDC: Address = "0x5555555555555555555555555555555555555555";
const TO: Address = "0x3333333333333333333333333333333333333333";
const NOW = 1_800_000_000;

const evm = (chainId: number, usdc?: Address) =>
  createEvmAdapter({
    family: "evm",
    name: `chain ${chainId}`,
    chainId,
    rpcUrl: "http://127.0.0.1:1",
    delegate: DELEGATE,
    confirmations: 2,
    minRelayerBalanceWei: "0",
    ...(usdc ? { usdc } : {}),
  });

/** A chain of a family without burner delegation, whose reads answer what they are asked. */
function nonDelegating(chainId: number, asked: string[]): ChainAdapter {
  const gateway: GatewayChain = {
    burnerDelegate: null,
    usdc: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
    verifierWarning: null,
    subscriptions: null,
    async balance(address) {
      asked.push(`balance ${address}`);
      return 7n;
    },
    async quote(token) {
      asked.push(`quote ${token}`);
      return { kind: "usdc" };
    },
    async gasValue() {
      return null;
    },
    async payTokens() {
      return [];
    },
    async verify() {
      return { ok: false, code: "intent_invalid_signature" };
    },
  };
  return { ...evm(chainId), gateway };
}

/** A fresh burner's authorization of the delegate on `chainId` (0: every chain). */
async function authorization(chainId: number): Promise<{ burner: Address; auth: Authorization }> {
  const account = privateKeyToAccount(generatePrivateKey());
  const { r, s, yParity } = await account.signAuthorization({ address: DELEGATE, chainId, nonce: 0 });
  return {
    burner: account.address,
    auth: { address: DELEGATE, chainId, nonce: 0, r, s, yParity: yParity ?? 0 },
  };
}

async function signedRefund(chainId: number) {
  const burner = await newBurner({ chainId, delegate: DELEGATE });
  const deadline = NOW + 600;
  const typed = standingRefundTypedData(chainId, burner.address, { to: TO, deadline: BigInt(deadline) });
  const signature: Hex = await burner.account.signTypedData(typed);
  return { burner, refund: { to: TO, deadline, signatures: { [String(chainId)]: signature } } };
}

describe("the gateway's chains", () => {
  it("checks each signature with the adapter of the chain it is filed under", async () => {
    const chains = createGatewayChains([evm(31337), evm(31338)]);
    const { burner, refund } = await signedRefund(31338);
    expect(await chains.checks.standingRefund(refund, burner.address, NOW)).toEqual({ ok: true });
    // The same signature filed under the other chain is checked under that chain's domain.
    const moved = { ...refund, signatures: { "31337": refund.signatures["31338"] as Hex } };
    expect(await chains.checks.standingRefund(moved, burner.address, NOW)).toMatchObject({
      ok: false,
      code: "standing_refund_invalid_signature",
      message: "a standing refund signature does not recover to the burner: chain 31337",
    });
  });

  it("refuses a signature for a chain that is not configured, whatever it holds", async () => {
    const chains = createGatewayChains([evm(31337)]);
    const { burner, refund } = await signedRefund(8453);
    expect(await chains.checks.standingRefund(refund, burner.address, NOW)).toEqual({
      ok: false,
      code: "standing_refund_invalid_signature",
      message:
        "a standing refund signature does not recover to the burner: chain 8453: not a configured chain",
    });
  });

  it("takes an authorization only for a chain whose burners delegate; chainId 0 over those alone", async () => {
    const asked: string[] = [];
    const chains = createGatewayChains([evm(31337), nonDelegating(900, asked)]);
    expect(chains.delegating).toBe(true);
    const anyChain = await authorization(0);
    expect(await chains.checks.authorization(anyChain.auth, anyChain.burner)).toEqual({ ok: true });
    const elsewhere = await authorization(900);
    expect(await chains.checks.authorization(elsewhere.auth, elsewhere.burner)).toMatchObject({
      ok: false,
      code: "authorization_chain_unsupported",
      message: "the authorization's chain has no configured delegate: chain 900 is not supported",
    });
    expect(createGatewayChains([nonDelegating(900, asked)]).delegating).toBe(false);
  });

  it("sends each read to the chain it names, and refuses a chain that is not configured", async () => {
    const asked: string[] = [];
    const chains = createGatewayChains([evm(31337), nonDelegating(900, asked)]);
    expect(await chains.reads.probe(900, TO)).toBe(7n);
    expect(await chains.reads.quote(900, USDC, 5n)).toEqual({ kind: "usdc" });
    expect(asked).toEqual([`balance ${TO}`, `quote ${USDC}`]);
    await expect(chains.reads.probe(1, TO)).rejects.toMatchObject({ code: "chain_not_configured" });
    expect(chains.has(900)).toBe(true);
    expect(chains.has(1)).toBe(false);
  });

  it("offers the hosted page the chains whose burners delegate and that have a USDC", () => {
    const chains = createGatewayChains([evm(31337, USDC), evm(31338), nonDelegating(900, [])]);
    expect(chains.payable()).toEqual([
      { chainId: 31337, name: "chain 31337", delegate: DELEGATE, usdc: USDC },
    ]);
  });
});
