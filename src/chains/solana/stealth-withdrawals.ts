import { getBase58Decoder } from "@solana/kit";
import { decodeTransferCheckedInstruction } from "@solana/spl-token";
import { Connection, type Keypair, PublicKey, Transaction } from "@solana/web3.js";
import type { ChainConfig } from "../config.ts";
import { ChainUnavailableError } from "../gateway-chains.ts";
import {
  type SolanaStealthWithdrawals,
  SolanaWithdrawRefused,
  type SolanaWithdrawRequest,
} from "../solana-stealth-withdrawals.ts";
import { keypairFromBase58, parseSolanaAddress } from "./config.ts";
import { buildStealthWithdrawal, checkStealthWithdrawal } from "./stealth-withdraw.ts";
import { associatedTokenBalance } from "./token-accounts.ts";

export interface SolanaStealthWithdrawalsDeps {
  chainId: number;
  rpcUrl: string;
  mint: string;
  relayer: Keypair;
  /** How long a relayed withdrawal may take to reach `confirmed` before the route answers 502. */
  confirmTimeoutMs?: number;
}

/**
 * The withdrawals of the configured Solana chain whose relayer key is given (the service has at most
 * one Solana chain); undefined without one, and the routes do not exist.
 */
export function solanaStealthWithdrawals(
  chains: readonly ChainConfig[],
): SolanaStealthWithdrawals | undefined {
  for (const c of chains) {
    if (c.family !== "solana") continue;
    const relayer = c.relayer ? keypairFromBase58(c.relayer) : null;
    if (relayer)
      return createSolanaStealthWithdrawals({
        chainId: c.chainId,
        rpcUrl: c.rpcUrl,
        mint: c.usdcMint,
        relayer,
      });
  }
  return undefined;
}

/** A request path waits this long for one RPC answer, then answers 502. */
const RPC_TIMEOUT_MS = 5_000;
const signatureText = getBase58Decoder();

/**
 * The relayer's side of a Solana stealth withdrawal (docs/STEALTH.md, "Withdrawal on Solana"). What it
 * pays is bounded to one transaction fee per withdrawal that lands: the signed transaction must be the
 * prepared one byte for byte with a valid stealth signature (checked before anything is sent), the
 * node's preflight simulation must pass (a failing one costs nothing), the rent of the destination's
 * account it may create is returned by closing the stealth account, and a withdrawal empties the
 * account, so another needs a new deposit first.
 */
export function createSolanaStealthWithdrawals(deps: SolanaStealthWithdrawalsDeps): SolanaStealthWithdrawals {
  const connection = new Connection(deps.rpcUrl, {
    commitment: "confirmed",
    fetch: (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(RPC_TIMEOUT_MS) }),
  });
  const feePayer = deps.relayer.publicKey.toBase58();
  const mint = new PublicKey(deps.mint);
  const read = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (err) {
      const why = err instanceof Error ? err.message.split("\n")[0] : String(err);
      throw new ChainUnavailableError(`chain ${deps.chainId}'s RPC did not answer: ${why}`, { cause: err });
    }
  };
  const balanceOf = (stealthAddress: string) =>
    read(() => associatedTokenBalance(connection, mint, new PublicKey(stealthAddress)));
  const nothing = (stealthAddress: string) =>
    new SolanaWithdrawRefused(
      "stealth_solana_nothing_to_withdraw",
      `${stealthAddress} holds no USDC: nothing to withdraw`,
    );
  const status = async (signature: string) =>
    (await read(() => connection.getSignatureStatuses([signature], { searchTransactionHistory: true })))
      .value[0] ?? null;

  return {
    chainId: deps.chainId,
    parseAddress: parseSolanaAddress,
    async prepare(request) {
      const amount = await balanceOf(request.stealthAddress);
      if (amount === 0n) throw nothing(request.stealthAddress);
      const { blockhash, lastValidBlockHeight } = await read(() =>
        connection.getLatestBlockhash("confirmed"),
      );
      const tx = buildStealthWithdrawal({ ...request, feePayer, mint: deps.mint, amount, blockhash });
      const transaction = tx
        .serialize({ requireAllSignatures: false, verifySignatures: false })
        .toString("base64");
      return { amount, mint: deps.mint, feePayer, blockhash, lastValidBlockHeight, transaction };
    },
    async withdraw(request) {
      const amount = await balanceOf(request.stealthAddress);
      // Nothing left: the same withdrawal sent again after it landed is answered as it was.
      if (amount === 0n) {
        const landed = await alreadyLanded(request);
        if (landed) return landed;
        throw nothing(request.stealthAddress);
      }
      const checked = checkStealthWithdrawal(request.transaction, {
        ...request,
        feePayer,
        mint: deps.mint,
        amount,
      });
      if (!checked.ok) throw new SolanaWithdrawRefused("stealth_solana_withdraw_invalid", checked.reason);
      const tx = checked.transaction;
      if (
        !(
          await read(() => connection.isBlockhashValid(tx.recentBlockhash ?? "", { commitment: "confirmed" }))
        ).value
      )
        throw new SolanaWithdrawRefused(
          "stealth_solana_withdraw_invalid",
          "its blockhash expired: prepare the withdrawal again and sign the new one",
        );
      tx.partialSign(deps.relayer);
      const signature = signatureText.decode(tx.signature as Uint8Array);
      try {
        // Preflight simulation on (the default): a transaction that would fail is refused unpaid.
        await connection.sendRawTransaction(tx.serialize(), { preflightCommitment: "confirmed" });
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        if (/-32002|simulation failed/i.test(why))
          throw new SolanaWithdrawRefused(
            "stealth_solana_withdraw_fails",
            `simulation: ${why.split("\n")[0]}`,
          );
        // Sent by an earlier request whose answer was lost: the status below finds it.
        if (!/already been processed|AlreadyProcessed/i.test(why))
          throw new ChainUnavailableError(`chain ${deps.chainId}: sendTransaction: ${why.split("\n")[0]}`, {
            cause: err,
          });
      }
      await confirmed(signature);
      return { signature, amount };
    },
  };

  /** Waits until the withdrawal is `confirmed`; an error on chain is a refusal (its fee was paid). */
  async function confirmed(signature: string): Promise<void> {
    const deadline = Date.now() + (deps.confirmTimeoutMs ?? 30_000);
    for (;;) {
      const s = await status(signature);
      if (s?.err)
        throw new SolanaWithdrawRefused(
          "stealth_solana_withdraw_fails",
          `failed on chain: ${JSON.stringify(s.err)}`,
        );
      if (s?.confirmationStatus === "confirmed" || s?.confirmationStatus === "finalized") return;
      if (Date.now() > deadline)
        throw new ChainUnavailableError(
          `chain ${deps.chainId}: the withdrawal ${signature} is not confirmed yet`,
        );
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /** The withdrawal this request carries, when it already landed: its signature and the amount it moved. */
  async function alreadyLanded(
    request: SolanaWithdrawRequest & { transaction: string },
  ): Promise<{ signature: string; amount: bigint } | null> {
    let amount: bigint;
    try {
      const transfer = Transaction.from(Buffer.from(request.transaction, "base64")).instructions[1];
      if (transfer === undefined) return null;
      amount = decodeTransferCheckedInstruction(transfer).data.amount;
    } catch {
      return null;
    }
    // Only the withdrawal of this address to this destination, as prepared, signed by the stealth key.
    const checked = checkStealthWithdrawal(request.transaction, {
      ...request,
      feePayer,
      mint: deps.mint,
      amount,
    });
    if (!checked.ok) return null;
    checked.transaction.partialSign(deps.relayer);
    const signature = signatureText.decode(checked.transaction.signature as Uint8Array);
    const s = await status(signature);
    return s === null || s.err ? null : { signature, amount };
  }
}
