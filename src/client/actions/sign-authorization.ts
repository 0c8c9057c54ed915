import type { Address, LocalAccount } from "viem";
import type { Authorization } from "../../domain/types.ts";
import { ClientError, walletCall } from "../errors.ts";

export interface SignAuthorizationParameters {
  /** The burner's account (from `makeBurner`), or any account that signs EIP-7702 authorizations. */
  signer: Pick<LocalAccount, "signAuthorization">;
  /** The source chain the deposit is expected on. 0 (every chain) is refused: the delegate's address differs per chain. */
  chainId: number;
  /** The service's BurnerDelegate on that chain (the local stack's `delegate`). */
  delegate: Address;
  /** The burner's account nonce; a fresh burner has sent nothing, so 0 (the default). */
  nonce?: number | undefined;
}

/** The `eip7702_auth` object of `POST /sessions` and of the commit. */
export type SignAuthorizationReturnType = Authorization;
/** `config_error` for a chain id or nonce that is not a usable integer; `wallet_rejected` / `wallet_error` from the signer. */
export type SignAuthorizationErrorType = ClientError<"config_error" | "wallet_rejected" | "wallet_error">;

/**
 * Signs the burner's EIP-7702 delegation to the service's delegate (viem's `signAuthorization`), in
 * the wire form the service takes.
 *
 * @example
 * import { makeBurner, signAuthorization } from "deposit-settlement/client";
 * const burner = makeBurner();
 * const eip7702Auth = await signAuthorization({ signer: burner.account, chainId: 31337, delegate: "0x…" });
 */
export async function signAuthorization(
  params: SignAuthorizationParameters,
): Promise<SignAuthorizationReturnType> {
  const nonce = params.nonce ?? 0;
  if (!Number.isSafeInteger(params.chainId) || params.chainId < 1)
    throw new ClientError("config_error", `chain id ${params.chainId} is not a chain id (0 is refused)`);
  if (!Number.isSafeInteger(nonce) || nonce < 0)
    throw new ClientError("config_error", `nonce ${nonce} is not an account nonce`);
  const { signer } = params;
  if (!signer.signAuthorization)
    throw new ClientError("wallet_error", "the signer cannot sign EIP-7702 authorizations");
  const sign = signer.signAuthorization;
  const auth = await walletCall("the EIP-7702 authorization", () =>
    sign({ contractAddress: params.delegate, chainId: params.chainId, nonce }),
  );
  return {
    address: auth.address,
    chainId: auth.chainId,
    nonce: auth.nonce,
    r: auth.r,
    s: auth.s,
    // viem leaves it out only for legacy `v` signatures, which signAuthorization never makes.
    yParity: auth.yParity ?? 0,
  };
}
