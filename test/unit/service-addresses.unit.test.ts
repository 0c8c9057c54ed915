import { getBase58Decoder } from "@solana/kit";
import { Keypair } from "@solana/web3.js";
import type { Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import type { ChainConfig } from "../../src/chains/config.ts";
import { createEvmAdapter } from "../../src/chains/evm/adapter.ts";
import { createGatewayChains } from "../../src/chains/gateway-chains.ts";
import { serviceAddresses } from "../../src/chains/service-addresses.ts";
import { createSolanaAdapter } from "../../src/chains/solana/adapter.ts";
import { solanaChainSchema } from "../../src/chains/solana/config.ts";
import { solanaSideOf } from "../../src/chains/solana-side.ts";
import { signAuthorization } from "../../src/client/actions/sign-authorization.ts";
import type { CheckoutResource, Guards } from "../../src/gateway/auth.ts";
import { registerRoutes } from "../../src/gateway/routes/checkout.ts";
import { bareGateway, CHAIN_ID, DELEGATE, memoryService } from "../support/memory-gateway.ts";

// The service's own addresses (src/chains/service-addresses.ts): one list for every family, each
// chain bringing its relayer and, on Solana, its vault; a session adds its fee sinks. The EVM
// checkout's register is held to it here (POST /sessions and the Solana routes in their own tests).

const evm = (relayerKey?: Hex) =>
  createEvmAdapter({
    family: "evm",
    name: "local",
    chainId: CHAIN_ID,
    rpcUrl: "http://127.0.0.1:1",
    delegate: DELEGATE,
    confirmations: 2,
    minRelayerBalanceWei: "0",
    ...(relayerKey
      ? {
          relayer: {
            address: privateKeyToAccount(relayerKey).address.toLowerCase() as Hex,
            privateKey: relayerKey,
          },
        }
      : {}),
  });

describe("serviceAddresses", () => {
  it("holds every chain's relayer and the Solana side's fee payer and vault, and a session's sinks", () => {
    const key = generatePrivateKey();
    const relayer = privateKeyToAccount(key).address.toLowerCase();
    const [feePayer, vault, sink, payer] = [1, 2, 3, 4].map(() => Keypair.generate().publicKey.toBase58());
    const own = serviceAddresses([evm(key), evm()], { feePayer: feePayer as string, vault: vault as string });
    expect([relayer, feePayer, vault].map((a) => own.includes(a as string))).toEqual([true, true, true]);
    expect(own.includes(payer as string)).toBe(false);
    expect(own.includes(sink as string)).toBe(false);
    expect(own.includes(sink as string, [null, sink as string])).toBe(true);
  });

  it("takes a Solana chain's relayer and vault from its adapter, which alone gives the Solana routes their side", () => {
    const relayer = Keypair.generate();
    const vault = Keypair.generate().publicKey.toBase58();
    const solana = (withVault: boolean) =>
      createSolanaAdapter(
        solanaChainSchema.parse({
          family: "solana",
          name: "local-solana",
          chainId: 792703810,
          rpcUrl: "http://127.0.0.1:1",
          usdcMint: Keypair.generate().publicKey.toBase58(),
          relayer: getBase58Decoder().decode(relayer.secretKey),
          ...(withVault ? { vault } : {}),
        }) as ChainConfig & { family: "solana" },
      );
    const own = serviceAddresses([evm(), solana(true)]);
    expect(own.includes(relayer.publicKey.toBase58())).toBe(true);
    expect(own.includes(vault)).toBe(true);
    expect(solanaSideOf([evm(), solana(true)])?.vault).toBe(vault);
    // Without a vault the Solana routes have nothing to sweep to: no side, no routes.
    expect(solanaSideOf([evm(), solana(false)])).toBeUndefined();
  });
});

describe("POST /sessions/:id/register (EVM checkout)", () => {
  const ID = "4a1c2e3f-5b6d-4e7f-8a9b-0c1d2e3f4a5b";
  const relayerKey = generatePrivateKey();
  const feeSinkKey = generatePrivateKey();

  async function gateway() {
    const service = memoryService();
    const app = bareGateway();
    const resource: CheckoutResource = {
      merchantId: "mer_1",
      clientSecretHash: null,
      appFeeRecipient: privateKeyToAccount(feeSinkKey).address.toLowerCase(),
    };
    const adapters = [evm(relayerKey)];
    await app.register(registerRoutes, {
      // The checkout guard lets every request in: what is tested is the burner's own rule.
      guards: {
        checkout: async () => ({ merchantId: "mer_1", keyId: "k", kind: "publishable" }),
      } as unknown as Guards,
      resources: async () => resource,
      chains: createGatewayChains(adapters),
      serviceAddresses: serviceAddresses(adapters),
      commands: service.commands,
      newId: () => crypto.randomUUID(),
      now: () => Date.now(),
    });
    return { app, service };
  }

  /** A registration whose authorization `key` itself signed: the key proof holds. */
  const registration = async (key: Hex) => {
    const account = privateKeyToAccount(key);
    const auth = await signAuthorization({ signer: account, chainId: CHAIN_ID, delegate: DELEGATE });
    return { burner_address: account.address, eip7702_auth: auth };
  };

  it.each([
    ["the relayer", relayerKey],
    ["the session's app fee sink", feeSinkKey],
  ])("refuses %s as the burner, even with its own authorization: 400, nothing sent", async (_what, key) => {
    const { app, service } = await gateway();
    try {
      const res = await app.inject({
        method: "POST",
        url: `/sessions/${ID}/register`,
        payload: await registration(key),
      });
      expect([res.statusCode, res.json().error]).toEqual([400, expect.stringMatching(/service's own/)]);
      expect(service.sent).toHaveLength(0);
    } finally {
      await app.close();
    }
  });

  it("passes a payer's own burner on to the session (no such session here: 404)", async () => {
    const { app, service } = await gateway();
    try {
      const payload = await registration(generatePrivateKey());
      const res = await app.inject({ method: "POST", url: `/sessions/${ID}/register`, payload });
      expect(res.statusCode, res.body).toBe(404);
      expect(service.sent.map((c) => c.type)).toEqual(["RegisterBurner"]);
    } finally {
      await app.close();
    }
  });
});
