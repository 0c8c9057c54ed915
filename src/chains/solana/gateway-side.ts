import { createPublicKey, verify } from "node:crypto";
import { getBase58Decoder, getBase58Encoder } from "@solana/kit";
import { getAssociatedTokenAddressSync } from "@solana/spl-token";
import { Connection, PublicKey } from "@solana/web3.js";
import { ChainUnavailableError } from "../../gateway/ports.ts";
import type { SolanaGatewaySide } from "../solana-side.ts";
import { checkBounceSetup } from "./bounce-setup.ts";
import { readClientTransaction, validSignature } from "./client-transaction.ts";
import { parseSolanaAddress } from "./config.ts";
import { checkSolanaRefund } from "./refund.ts";
import { checkSolanaSweep, NATIVE_MINT } from "./sweep.ts";
import { associatedTokenBalance } from "./token-accounts.ts";

/** What the gateway side needs of a Solana CHAINS entry (src/chains/solana/config.ts). */
export interface SolanaGatewayChain {
  chainId: number;
  rpcUrl: string;
  usdcMint: string;
  /** The relayer's public key (base58): fee payer of what the service co-signs. */
  feePayer: string;
  vault: string;
  /** The other chains its USDC can be delivered to (SolanaGatewaySide.reaches). */
  reaches: readonly number[];
}

/** A request path waits this long for the RPC, then answers 502. */
const RPC_TIMEOUT_MS = 5_000;

/**
 * The Solana routes' side of a chain: base58 keys parsed by web3.js, ed25519 checked by Node's own
 * crypto (OpenSSL), reads through an unmodified web3.js Connection.
 */
export function createSolanaGatewaySide(chain: SolanaGatewayChain): SolanaGatewaySide {
  const connection = new Connection(chain.rpcUrl, {
    commitment: "confirmed",
    fetch: (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(RPC_TIMEOUT_MS) }),
  });
  const read = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (err) {
      const why = err instanceof Error ? err.message.split("\n")[0] : String(err);
      throw new ChainUnavailableError(`chain ${chain.chainId}'s RPC did not answer: ${why}`, { cause: err });
    }
  };
  /** Why a transaction the burner signed can no longer land: its blockhash expired; null while it is valid. */
  const expired = async (blockhash: string): Promise<{ ok: false; reason: string } | null> =>
    (await read(() => connection.isBlockhashValid(blockhash, { commitment: "confirmed" }))).value
      ? null
      : { ok: false, reason: "its blockhash expired: sign it again with one from GET /solana/blockhash" };
  const checkSweep: SolanaGatewaySide["checkSweep"] = async (transaction, expected) => {
    const checked = checkSolanaSweep(transaction, { ...expected, feePayer: chain.feePayer });
    if (!checked.ok) return checked;
    const stale = await expired(checked.transaction.message.recentBlockhash);
    if (stale !== null) return stale;
    if (expected.token === NATIVE_MINT) {
      // Lamports to an account that does not exist open it, and the runtime refuses a new account
      // below the rent-exempt minimum: such a sweep would fail on chain, at the relayer's fee.
      const wallets = expected.legs.map((l) => new PublicKey(l.to));
      const [found, minimum] = await Promise.all([
        read(() => connection.getMultipleAccountsInfo(wallets)),
        read(() => connection.getMinimumBalanceForRentExemption(0, "confirmed")),
      ]);
      const short = expected.legs.filter((l, i) => found[i] == null && l.amount < BigInt(minimum));
      return short.length === 0
        ? { ok: true }
        : {
            ok: false,
            reason: `${short.map((l) => l.to).join(", ")} holds no account yet, and a transfer that opens one must bring at least ${minimum} lamports (the rent-exempt minimum)`,
          };
    }
    // A TransferChecked to a USDC account that does not exist fails on chain, at the relayer's fee.
    const mint = new PublicKey(expected.token);
    const accounts = expected.legs.map((l) => getAssociatedTokenAddressSync(mint, new PublicKey(l.to), true));
    const found = await read(() => connection.getMultipleAccountsInfo(accounts));
    // A Flow D sweep opens its first leg's account itself (src/chains/solana/sweep.ts).
    const opened = (i: number) => i === 0 && expected.openFirstLeg === true;
    const missing = expected.legs.filter((_, i) => found[i] == null && !opened(i)).map((l) => l.to);
    return missing.length === 0
      ? { ok: true }
      : { ok: false, reason: `no USDC account for ${missing.join(", ")}: create it before the sweep` };
  };
  return {
    chainId: chain.chainId,
    feePayer: chain.feePayer,
    vault: chain.vault,
    usdcMint: chain.usdcMint,
    reaches: chain.reaches,
    parseAddress: parseSolanaAddress,
    verifyMessage: verifyEd25519,
    latestBlockhash: () => read(() => connection.getLatestBlockhash("confirmed")),
    checkSweep,
    burnerSignature,
    async checkRefund(transaction, expected) {
      const burner = new PublicKey(expected.burner);
      const amount =
        expected.token === NATIVE_MINT
          ? BigInt(await read(() => connection.getBalance(burner, "confirmed")))
          : // No account: nothing was ever deposited, or the bounce closed it.
            await read(() => associatedTokenBalance(connection, new PublicKey(expected.token), burner));
      if (amount === 0n)
        return { ok: false, empty: true, reason: "the burner holds none of this asset: nothing to refund" };
      const checked = checkSolanaRefund(transaction, { ...expected, feePayer: chain.feePayer, amount });
      if (!checked.ok) return { ok: false, empty: false, reason: checked.reason };
      // The blockhash must still be valid, and a USDC recipient must have its account (the sweep's reads).
      const legs = [{ to: expected.to, amount }];
      const landable = await checkSweep(transaction, {
        burner: expected.burner,
        token: expected.token,
        legs,
      });
      if (!landable.ok) return { ok: false, empty: false, reason: landable.reason };
      const signature = burnerSignature(transaction, expected.burner);
      if (signature === null) return { ok: false, empty: false, reason: "the burner's signature is missing" };
      return { ok: true, amount, signature };
    },
    async checkBounceSetup(wire, expected) {
      const checked = checkBounceSetup(wire, {
        sessionId: expected.sessionId,
        burner: new PublicKey(expected.burner),
        relayer: new PublicKey(chain.feePayer),
        mint: new PublicKey(chain.usdcMint),
      });
      if (!checked.ok) return checked;
      // The session keeps the newest setup it is given (a payer's page re-signs it while it waits):
      // an expired one would take the place of one the relayer could still relay.
      return (
        (await expired(checked.transaction.message.recentBlockhash)) ?? {
          ok: true,
          refundTo: checked.refundTo,
        }
      );
    },
  };
}

const base58 = getBase58Encoder();
// kit's "decoder" turns bytes into their base58 string.
const base58Text = getBase58Decoder();

/** DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410): the raw 32-byte key follows it. */
const ED25519_SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

export function verifyEd25519(signer: string, message: Uint8Array, signature: string): boolean {
  let sig: Uint8Array;
  let key: Uint8Array;
  try {
    // kit's "encoder" turns a base58 string into its bytes.
    sig = new Uint8Array(base58.encode(signature));
    key = new Uint8Array(base58.encode(signer));
  } catch {
    return false;
  }
  if (sig.length !== 64 || key.length !== 32) return false;
  const publicKey = createPublicKey({
    key: Buffer.concat([ED25519_SPKI_PREFIX, key]),
    format: "der",
    type: "spki",
  });
  return verify(null, message, publicKey, sig);
}

function burnerSignature(wire: string, burner: string): string | null {
  const read = readClientTransaction(wire);
  if (!read.ok) return null;
  const signed = validSignature(read.read.transaction, new PublicKey(burner));
  return signed === null ? null : base58Text.decode(signed);
}
