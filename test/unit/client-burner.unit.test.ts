import { generatePrivateKey } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { checkAuthorization } from "../../src/chains/evm/authorization.ts";
import { newBurner } from "../../src/client/burner.ts";
import type { Address } from "../../src/domain/types.ts";

const DELEGATE: Address = "0x1111111111111111111111111111111111111111";
const chain = { chainId: 31337, delegate: DELEGATE };

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
