import { getAssociatedTokenAddressSync } from "@solana/spl-token";
import { type Connection, type Keypair, PublicKey } from "@solana/web3.js";
import { buildSolanaRefund } from "../../chains/solana/refund.ts";
import { NATIVE_MINT } from "../../chains/solana/sweep.ts";
import type { ApiClient } from "../api-client.ts";
import { ApiError, ClientError } from "../errors.ts";
import type { SolanaRefundBody, SolanaRefundResponse } from "../types.ts";
import { getSolanaBlockhash } from "./get-solana-blockhash.ts";

/** Signing rounds at most: a refund refused because the balance changed since it was read is signed again. */
const MAX_SIGN_ROUNDS = 3;

export interface RefundSolanaParameters {
  /** The ended Solana-origin session (`expired`, `failed` or `bounced`). */
  id: string;
  /** A reader of the Solana chain through the payer's own RPC: the refund moves the burner's whole balance, read there. */
  connection: Pick<Connection, "getBalance" | "getTokenAccountBalance">;
  /** The session's burner (makeSolanaBurner): it signs the transfer. */
  burner: Keypair;
  /** The payer's wallet (base58); for USDC its associated USDC account must exist. */
  to: string;
  /** The USDC mint, or the native mint `So11111111111111111111111111111111111111112` for SOL. */
  token: string;
  /** The relayer, the fee payer: the creation answer's `sweep.fee_payer`. */
  feePayer: string;
  signal?: AbortSignal | undefined;
}

/** The refund once confirmed on chain, or null when the burner holds none of `token`. */
export type RefundSolanaReturnType = SolanaRefundResponse | null;
/**
 * ApiError: 409 `wrong_status` (the session has not ended: its sweep is the way out),
 * `refund_in_flight` (retryable once it settles), `refund_limit_reached`, `nothing_to_refund`; 400
 * `solana_refund_invalid` (after the rounds, or for a `to` without a USDC account). ClientError
 * `config_error` for an address that is not base58, `network_error` when the payer's RPC did not answer.
 */
export type RefundSolanaErrorType = ApiError | ClientError<"config_error" | "network_error">;

/**
 * Takes the burner's whole balance of one asset back from an ended session, the service's relayer
 * paying the fee (`POST /sessions/:id/solana-refund`; docs/SOLANA.md, "The payer's refund"): for
 * what the automatic bounce does not cover (SOL, money after the bounce, no bounce setup, a revoked
 * approval). The burner signs the transfer of exactly the balance the payer's RPC shows, built by
 * the service's own `buildSolanaRefund`; if the balance changed before the service read it, the
 * refusal is signed again for the new balance. `refundSolanaSol` moves SOL without the service.
 *
 * @example
 * import { refundSolana } from "deposit-settlement/client";
 * const refunded = await refundSolana(client, {
 *   id, connection, burner: burner.keypair, to: wallet, token: created.sweep.usdc_mint, feePayer: created.sweep.fee_payer,
 * });
 */
export async function refundSolana(
  client: ApiClient,
  params: RefundSolanaParameters,
): Promise<RefundSolanaReturnType> {
  const { burner, token, signal } = params;
  const key = (name: string, value: string) => {
    try {
      return new PublicKey(value).toBase58();
    } catch {
      throw new ClientError("config_error", `${name} is not a Solana address: ${value}`);
    }
  };
  const to = key("to", params.to);
  const feePayer = key("feePayer", params.feePayer);
  key("token", token);
  let last: unknown;
  for (let round = 1; round <= MAX_SIGN_ROUNDS; round++) {
    const amount = await balanceOf(params.connection, burner.publicKey, token);
    if (amount === 0n) return null;
    const { blockhash } = await getSolanaBlockhash(client, { signal });
    const tx = buildSolanaRefund({
      burner: burner.publicKey.toBase58(),
      feePayer,
      token,
      to,
      amount,
      blockhash,
    });
    tx.partialSign(burner);
    const body: SolanaRefundBody = {
      transaction: tx.serialize({ requireAllSignatures: false, verifySignatures: false }).toString("base64"),
      to,
      token,
    };
    try {
      return await client.request<SolanaRefundResponse>({
        method: "POST",
        path: `/sessions/${encodeURIComponent(params.id)}/solana-refund`,
        body,
        signal,
      });
    } catch (err) {
      // The balance the service read was not the one signed for (money came or went): sign again.
      if (!(err instanceof ApiError && err.status === 400)) throw err;
      if ((await balanceOf(params.connection, burner.publicKey, token)) === amount) throw err;
      last = err;
    }
  }
  throw last;
}

/** The burner's balance of `token` at `confirmed`: lamports for SOL, base units of its USDC account (0 when it has none). */
async function balanceOf(
  connection: RefundSolanaParameters["connection"],
  burner: PublicKey,
  token: string,
): Promise<bigint> {
  try {
    if (token === NATIVE_MINT) return BigInt(await connection.getBalance(burner, "confirmed"));
    const account = getAssociatedTokenAddressSync(new PublicKey(token), burner);
    const balance = await connection.getTokenAccountBalance(account, "confirmed").catch((err: unknown) => {
      // web3.js answers an account that does not exist with an error, not a zero.
      if (String(err).includes("could not find account")) return null;
      throw err;
    });
    return balance === null ? 0n : BigInt(balance.value.amount);
  } catch (cause) {
    throw new ClientError("network_error", "the Solana RPC did not answer", { cause, retryable: true });
  }
}
