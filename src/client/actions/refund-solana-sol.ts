import { type Connection, type Keypair, PublicKey, SystemProgram, Transaction } from "@solana/web3.js";
import { ClientError } from "../errors.ts";

/** A transaction's fee with one signature (the burner's), in lamports. */
const FEE_ONE_SIGNATURE = 5_000n;

export interface RefundSolanaSolParameters {
  connection: Connection;
  /** The session's burner (makeSolanaBurner): it signs and pays the fee out of what it holds. */
  burner: Keypair;
  /** Where the SOL goes (base58). */
  to: string;
}

/** The signature of the transfer, or null when the burner holds no more than the fee. */
export type RefundSolanaSolReturnType = { signature: string; lamports: bigint } | null;
export type RefundSolanaSolErrorType = ClientError<"config_error" | "network_error">;

/**
 * Sends the burner's whole SOL balance, less the fee it pays itself, to `to`, signed by the burner's
 * key. The service cannot do this: lamports cannot be delegated, and only the burner's key moves
 * them, so SOL that a session will not settle is returned by the payer's client that keeps the key
 * (docs/SOLANA.md, "The bounce"). The burner ends with nothing, which a system account may.
 *
 * @example
 * import { refundSolanaSol } from "deposit-settlement/client";
 * const sent = await refundSolanaSol({ connection, burner: burner.keypair, to: wallet });
 */
export async function refundSolanaSol(params: RefundSolanaSolParameters): Promise<RefundSolanaSolReturnType> {
  let to: PublicKey;
  try {
    to = new PublicKey(params.to);
  } catch {
    throw new ClientError("config_error", `not a Solana address: ${params.to}`);
  }
  const from = params.burner.publicKey;
  let balance: bigint;
  let blockhash: { blockhash: string; lastValidBlockHeight: number };
  try {
    balance = BigInt(await params.connection.getBalance(from, "confirmed"));
    blockhash = await params.connection.getLatestBlockhash("confirmed");
  } catch (cause) {
    throw new ClientError("network_error", "the Solana RPC did not answer", { cause, retryable: true });
  }
  const lamports = balance - FEE_ONE_SIGNATURE;
  if (lamports <= 0n) return null;
  const tx = new Transaction({ feePayer: from, ...blockhash }).add(
    SystemProgram.transfer({ fromPubkey: from, toPubkey: to, lamports }),
  );
  tx.sign(params.burner);
  try {
    const signature = await params.connection.sendRawTransaction(tx.serialize());
    await params.connection.confirmTransaction({ signature, ...blockhash }, "confirmed");
    return { signature, lamports };
  } catch (cause) {
    throw new ClientError("network_error", "the SOL refund did not get through", { cause, retryable: true });
  }
}
