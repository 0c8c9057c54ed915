import type { Address, Hex } from "viem";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import type { Authorization } from "../domain/types.ts";

// The first piece of the payer's client library (ARCHITECTURE.md: src/client/): what a payer's
// wallet does before it opens a session. Nothing here talks to the service.

export interface Burner {
  /** The burner's private key: the payer's client keeps it to sign the Intent after the deposit. */
  key: Hex;
  account: PrivateKeyAccount;
  address: Address;
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
  const key = generatePrivateKey();
  const account = privateKeyToAccount(key);
  const signer = options.signer ? privateKeyToAccount(options.signer) : account;
  const auth = await signer.signAuthorization({
    contractAddress: chain.delegate,
    chainId: chain.chainId,
    nonce: 0,
  });
  return {
    key,
    account,
    address: account.address,
    eip7702Auth: {
      address: auth.address,
      chainId: auth.chainId,
      nonce: auth.nonce,
      r: auth.r,
      s: auth.s,
      // viem leaves it out only for legacy `v` signatures, which signAuthorization never makes.
      yParity: auth.yParity ?? 0,
    },
  };
}
