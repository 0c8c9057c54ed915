import { PublicKey, Transaction } from "@solana/web3.js";
// biome-ignore lint/style/useNodejsImportProtocol: "node:buffer" would not resolve in a browser bundle
import { Buffer } from "buffer";
import { buildStealthWithdrawal } from "../../chains/solana/stealth-withdraw.ts";
import { publicKeyOfScalar, signWithScalar, solanaStealthSpendingScalar } from "../../stealth/ed25519.ts";
import type { ApiClient } from "../api-client.ts";
import { ClientError } from "../errors.ts";

export interface WithdrawSolanaStealthParameters {
  /** The announcement's stealth address and ephemeral key (base58), found with the view key. */
  stealthAddress: string;
  ephemeralPubkey: string;
  /** The recipient's two ed25519 seeds (32 bytes each: a Solana secret key's first half). */
  viewSeed: Uint8Array;
  spendSeed: Uint8Array;
  /** The wallet the whole USDC balance goes to (base58). */
  destination: string;
  signal?: AbortSignal | undefined;
}

export interface WithdrawSolanaStealthReturnType {
  chain_id: number;
  /** The withdrawal's signature (base58). */
  signature: string;
  destination: string;
  /** Base units of USDC moved (decimal string). */
  amount: string;
}

/**
 * ClientError `verification_failed`: the keys do not own the stealth address, or the prepared
 * transaction is not the withdrawal asked for (nothing was signed). ApiError: 409
 * `stealth_solana_nothing_to_withdraw`, 400 `stealth_solana_withdraw_invalid`, 403 `stealth_disabled`.
 */
export type WithdrawSolanaStealthErrorType = ClientError<"verification_failed">;

interface Prepared {
  chain_id: number;
  token: string;
  amount: string;
  fee_payer: string;
  blockhash: string;
  transaction: string;
}

/**
 * Withdraws a Solana stealth address's whole USDC balance, the service's relayer paying the fee
 * (docs/STEALTH.md, "Withdrawal on Solana"): derives the spending scalar from the seeds and the
 * announced ephemeral key, asks the service to prepare the withdrawal, checks the prepared
 * transaction is exactly the one buildStealthWithdrawal makes for that destination and amount (so a
 * service cannot make it sign anything else), signs its message with the scalar (raw-scalar EdDSA) and
 * sends it back to be co-signed and relayed.
 *
 * @example
 * import { withdrawSolanaStealth } from "deposit-settlement/client";
 * const sent = await withdrawSolanaStealth(client, {
 *   stealthAddress, ephemeralPubkey, viewSeed, spendSeed, destination: wallet.toBase58(),
 * });
 */
export async function withdrawSolanaStealth(
  client: ApiClient,
  params: WithdrawSolanaStealthParameters,
): Promise<WithdrawSolanaStealthReturnType> {
  const refuse = (why: string): never => {
    throw new ClientError(
      "verification_failed",
      `not signing the withdrawal of ${params.stealthAddress}: ${why}`,
    );
  };
  let scalar = 0n;
  try {
    scalar = solanaStealthSpendingScalar(params.ephemeralPubkey, params);
  } catch {
    refuse("the ephemeral key is not a valid ed25519 point");
  }
  if (publicKeyOfScalar(scalar) !== params.stealthAddress) refuse("these keys do not own it");
  const request = { stealth_address: params.stealthAddress, destination: params.destination };
  const prepared = await client.request<Prepared>({
    method: "POST",
    path: "/stealth/withdraw/solana/prepare",
    body: request,
    signal: params.signal,
  });
  const want = buildStealthWithdrawal({
    stealthAddress: params.stealthAddress,
    destination: params.destination,
    feePayer: prepared.fee_payer,
    mint: prepared.token,
    amount: BigInt(prepared.amount),
    blockhash: prepared.blockhash,
  });
  const tx = Transaction.from(Buffer.from(prepared.transaction, "base64"));
  const message = tx.serializeMessage();
  if (!message.equals(want.serializeMessage()))
    refuse("the prepared transaction is not the whole balance to the destination and nothing else");
  tx.addSignature(new PublicKey(params.stealthAddress), Buffer.from(signWithScalar(scalar, message)));
  return client.request<WithdrawSolanaStealthReturnType>({
    method: "POST",
    path: "/stealth/withdraw/solana",
    body: {
      ...request,
      transaction: tx.serialize({ requireAllSignatures: false, verifySignatures: false }).toString("base64"),
    },
    signal: params.signal,
    // The same signed withdrawal sent again is answered as it was, never relayed twice.
  });
}
