import type { Address, Hex } from "viem";
import type { Authorization } from "../domain/types.ts";
import { type MakeBurnerReturnType, makeBurner } from "./actions/make-burner.ts";
import { signAuthorization } from "./actions/sign-authorization.ts";

// What a payer's wallet does before it opens a session: a burner and its delegation, the two
// actions `makeBurner` and `signAuthorization` in one call. Nothing here talks to the service.

export interface Burner extends MakeBurnerReturnType {
  /** The `eip7702_auth` of `POST /sessions`: the burner's delegation to the settlement contract, signed for the source chain. */
  eip7702Auth: Authorization;
}

/**
 * A fresh one-time burner and its signed EIP-7702 authorization (nonce 0: the burner has never
 * sent a transaction). `signer` signs in the burner's place: only tests use it, to make an
 * authorization the service must refuse.
 */
export async function newBurner(
  chain: { chainId: number; delegate: Address },
  options: { signer?: Hex } = {},
): Promise<Burner> {
  const burner = makeBurner();
  const signer = options.signer ? makeBurner({ key: options.signer }).account : burner.account;
  const eip7702Auth = await signAuthorization({ signer, chainId: chain.chainId, delegate: chain.delegate });
  return { ...burner, eip7702Auth };
}
