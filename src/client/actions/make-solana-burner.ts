import { Keypair } from "@solana/web3.js";

export interface MakeSolanaBurnerParameters {
  /** An existing burner's 64-byte secret key, e.g. restored from the payer's storage after a reload. Default: a fresh one. */
  secretKey?: Uint8Array | undefined;
}

export interface MakeSolanaBurnerReturnType {
  /** Keep it until the session ends: it signs the bounce setup, the sweep and any refund of SOL. */
  keypair: Keypair;
  /** The burner's address (base58): what `POST /sessions/:id/solana-burner` registers. */
  address: string;
}

/**
 * A one-time Solana burner: an ed25519 keypair from web3.js's `Keypair.generate` (the platform's
 * CSPRNG). Nothing is signed and nothing talks to the service.
 *
 * @example
 * import { makeSolanaBurner } from "deposit-settlement/client";
 * const burner = makeSolanaBurner();
 * localStorage.setItem("solana-burner", Buffer.from(burner.keypair.secretKey).toString("base64"));
 */
export function makeSolanaBurner(params: MakeSolanaBurnerParameters = {}): MakeSolanaBurnerReturnType {
  const keypair = params.secretKey ? Keypair.fromSecretKey(params.secretKey) : Keypair.generate();
  return { keypair, address: keypair.publicKey.toBase58() };
}
