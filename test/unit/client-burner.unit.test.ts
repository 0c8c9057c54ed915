import { generatePrivateKey } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { evmSignatureChecks } from "../../src/chains/evm/typed-data/authorization.ts";
import { makeBurner } from "../../src/client/actions/make-burner.ts";
import { signAuthorization } from "../../src/client/actions/sign-authorization.ts";
import { newBurner } from "../../src/client/burner.ts";
import type { Address, Authorization } from "../../src/domain/types.ts";

const DELEGATE: Address = "0x1111111111111111111111111111111111111111";
const chain = { chainId: 31337, delegate: DELEGATE };
const checkAuthorization = (auth: Authorization, burner: Address, chains: [typeof chain]) =>
  evmSignatureChecks(chains).authorization(auth, burner);

describe("the client library's newBurner", () => {
  it("makes a fresh burner whose authorization the service accepts for that burner", async () => {
    const [a, b] = await Promise.all([newBurner(chain), newBurner(chain)]);
    expect(a.address).not.toBe(b.address);
    expect(a.eip7702Auth).toMatchObject({ address: DELEGATE, chainId: 31337, nonce: 0 });
    expect(await checkAuthorization(a.eip7702Auth, a.address, [chain])).toEqual({ ok: true });
    // The authorization is the burner's own: it is refused for another burner.
    expect(await checkAuthorization(a.eip7702Auth, b.address, [chain])).toMatchObject({
      code: "authorization_not_burner",
    });
  });

  it("signs with another key when told, which the service refuses for the burner", async () => {
    const burner = await newBurner(chain, { signer: generatePrivateKey() });
    expect(await checkAuthorization(burner.eip7702Auth, burner.address, [chain])).toMatchObject({
      ok: false,
      code: "authorization_not_burner",
    });
  });
});

describe("makeBurner and signAuthorization", () => {
  it("restores a burner from its stored key, and signs the delegation the service accepts", async () => {
    const burner = makeBurner();
    const restored = makeBurner({ key: burner.key });
    expect(restored.address).toBe(burner.address);
    const auth = await signAuthorization({ signer: restored.account, ...chain });
    expect(await checkAuthorization(auth, burner.address, [chain])).toEqual({ ok: true });
  });

  it("refuses chain id 0 and a negative nonce (config_error), and a signer that cannot sign one (wallet_error)", async () => {
    const { account } = makeBurner();
    await expect(
      signAuthorization({ signer: account, chainId: 0, delegate: DELEGATE }),
    ).rejects.toMatchObject({
      code: "config_error",
    });
    await expect(signAuthorization({ signer: account, ...chain, nonce: -1 })).rejects.toMatchObject({
      code: "config_error",
    });
    await expect(signAuthorization({ signer: {}, ...chain })).rejects.toMatchObject({ code: "wallet_error" });
  });
});
