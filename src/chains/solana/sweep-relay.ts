import { getBase58Decoder } from "@solana/kit";
import { Connection, type Keypair } from "@solana/web3.js";
import type { RelaySolanaSweepCommand, SolanaMined, StepTry } from "../adapter.ts";
import { StepRefused, StepReverted, UpstreamUnavailable } from "../execution-errors.ts";
import { fullySigned, readClientTransaction } from "./client-transaction.ts";
import { relayerSpend } from "./relayer-spend.ts";
import { solanaRpcCall } from "./rpc-call.ts";

export interface SweepRelayDeps {
  chainId: number;
  rpcUrl: string;
  /** The relayer: the sweep's fee payer, whose signature the service adds. */
  relayer: Keypair;
  signal: AbortSignal;
  /** How often the transaction's status is read while waiting for `finalized`. */
  pollMs?: number;
}

/** A sweep not finalized by then is reported as a retryable failure; the next try finds it by signature. */
const FINALIZE_TIMEOUT_MS = 60_000;
const signatureText = getBase58Decoder();

/**
 * The Solana executor's sweep step (the adapter's createExecutor exposes it as relaySolanaSweep):
 * co-signs the payer's checked sweep as fee payer, sends it and waits until it is `finalized` (the
 * fast fill pays an EVM destination only on a final vault sweep). Idempotent by command id, as every
 * executor step: ed25519 signatures are deterministic, so a retry, or a new executor after a crash,
 * rebuilds the same signature, finds the transaction by it and sends nothing twice (the node refuses
 * an already processed transaction anyway).
 */
export function createSweepRelay(deps: SweepRelayDeps) {
  const connection = new Connection(deps.rpcUrl, { commitment: "confirmed" });
  const pollMs = deps.pollMs ?? 400;
  const rpc = solanaRpcCall(deps.chainId);
  const status = async (signature: string) =>
    (
      await rpc("getSignatureStatuses", () =>
        connection.getSignatureStatuses([signature], { searchTransactionHistory: true }),
      )
    ).value[0] ?? null;

  return async function relaySolanaSweep(
    command: RelaySolanaSweepCommand,
    step: StepTry,
  ): Promise<SolanaMined> {
    // The bytes the gateway checked, legacy or v0: signed as they are, so what lands is what was checked.
    const read = readClientTransaction(command.transaction);
    if (!read.ok) throw new StepRefused(`the sweep is refused: ${read.reason}`, null);
    const tx = read.read.transaction;
    if (!read.read.feePayer.equals(deps.relayer.publicKey))
      throw new StepRefused("the sweep's fee payer is not this chain's relayer", null);
    tx.sign([deps.relayer]);
    if (!fullySigned(tx)) throw new StepRefused("the sweep's signatures do not verify", null);
    const signature = signatureText.decode(tx.signatures[0] as Uint8Array);
    if ((await status(signature)) === null) {
      try {
        await connection.sendRawTransaction(tx.serialize(), { preflightCommitment: "confirmed" });
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        // Sent by an earlier try whose answer was lost: the status below finds it.
        if (!/already been processed|AlreadyProcessed/i.test(why)) {
          if (/BlockhashNotFound|blockhash not found/i.test(why))
            throw new StepRefused(
              "the sweep's blockhash expired before it was sent: the payer must sign again",
              null,
            );
          if (/-32002|simulation failed/i.test(why))
            throw new StepRefused(`the sweep fails in simulation: ${why.split("\n")[0]}`, null);
          throw new UpstreamUnavailable(
            `chain ${deps.chainId}: sendTransaction: ${why.split("\n")[0]}`,
            null,
            {
              cause: err,
            },
          );
        }
      }
    }
    await step.onSubmitted(signature);
    const deadline = Date.now() + FINALIZE_TIMEOUT_MS;
    for (;;) {
      const s = await status(signature);
      if (s?.err) throw new StepReverted(`the sweep failed on chain: ${JSON.stringify(s.err)}`, null);
      if (s?.confirmationStatus === "finalized") break;
      if (
        s === null &&
        !(await rpc("isBlockhashValid", () => connection.isBlockhashValid(read.read.blockhash))).value
      )
        // Not landed and can no longer land: nothing was spent; the payer signs a new sweep.
        throw new StepRefused(
          "the sweep's blockhash expired before it landed: the payer must sign again",
          null,
        );
      if (Date.now() > deadline)
        throw new UpstreamUnavailable(`the sweep ${signature} is not finalized yet`, null);
      if (deps.signal.aborted) throw deps.signal.reason;
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
    const mined = await rpc("getTransaction", () =>
      connection.getTransaction(signature, { commitment: "finalized", maxSupportedTransactionVersion: 0 }),
    );
    if (mined === null)
      throw new UpstreamUnavailable(`the finalized sweep ${signature} is not readable yet`, null);
    return {
      txHash: signature,
      blockNumber: BigInt(mined.slot),
      // The relayer's cost of the sweep: compute units, and the lamports it lost (fee, and the rent
      // of an account the sweep opens, a Flow D stealth address's USDC account).
      gas: relayerSpend(mined.meta),
    };
  };
}
