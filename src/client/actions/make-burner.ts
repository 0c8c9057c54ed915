import type { Address, Hex } from "viem";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";

export interface MakeBurnerParameters {
  /** An existing burner key, e.g. restored from the payer's storage after a reload. Default: a fresh one. */
  key?: Hex | undefined;
}

export interface MakeBurnerReturnType {
  /** The burner's private key: keep it until the session ends, it signs the Intent and any refund. */
  key: Hex;
  account: PrivateKeyAccount;
  address: Address;
}

/**
 * A one-time burner: a private key from viem's `generatePrivateKey` (the platform's CSPRNG) and its
 * account. Nothing is signed and nothing talks to the service; `signAuthorization` comes next.
 *
 * @example
 * import { makeBurner } from "deposit-settlement/client";
 * const burner = makeBurner();
 * localStorage.setItem("burner", burner.key); // the payer's app keeps it until the session ends
 */
export function makeBurner(params: MakeBurnerParameters = {}): MakeBurnerReturnType {
  const key = params.key ?? generatePrivateKey();
  const account = privateKeyToAccount(key);
  return { key, account, address: account.address };
}
