// The first start of a node: a faucet (requestAirdrop's source), a USDC mint with 6 decimals and the
// stack's test and relayer keys funded with SOL and USDC, all made by ordinary transactions so they show
// in the block log. The keys are written to genesis.json beside the chain (local keys, never real ones)
// and read back on later starts.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Address, Lamports } from "@solana/kit";
import {
  createAssociatedTokenAccountInstruction,
  createInitializeMint2Instruction,
  createMintToInstruction,
  getAssociatedTokenAddressSync,
  MINT_SIZE,
  TOKEN_PROGRAM_ID,
} from "@solana/spl-token";
import {
  Keypair,
  LAMPORTS_PER_SOL,
  SystemProgram,
  Transaction,
  type TransactionInstruction,
} from "@solana/web3.js";
import type { Chain } from "./chain.ts";

export const USDC_DECIMALS = 6;
/** What each funded key starts with. */
export const FUNDING = { lamports: 1_000 * LAMPORTS_PER_SOL, usdc: 1_000_000n * 10n ** 6n };
const FAUCET_LAMPORTS = 1_000_000n * BigInt(LAMPORTS_PER_SOL);

export interface GenesisKeys {
  faucet: Keypair;
  mintAuthority: Keypair;
  usdcMint: Keypair;
  test: Keypair;
  relayer: Keypair;
}
const NAMES = ["faucet", "mintAuthority", "usdcMint", "test", "relayer"] as const;

function send(chain: Chain, payer: Keypair, signers: Keypair[], ixs: TransactionInstruction[]): void {
  const tx = new Transaction({
    feePayer: payer.publicKey,
    recentBlockhash: chain.blockhashAt("confirmed").blockhash,
  });
  tx.add(...ixs).sign(payer, ...signers);
  chain.submit(tx.serialize());
}

export function genesis(chain: Chain, dir: string): GenesisKeys {
  const file = path.join(dir, "genesis.json");
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, "utf8")) as Record<(typeof NAMES)[number], number[]>;
    return Object.fromEntries(
      NAMES.map((n) => [n, Keypair.fromSecretKey(Uint8Array.from(saved[n]))]),
    ) as never;
  }
  const keys = Object.fromEntries(NAMES.map((n) => [n, Keypair.generate()])) as unknown as GenesisKeys;
  const { faucet, mintAuthority, usdcMint, test, relayer } = keys;
  // The faucet's lamports are genesis money: set directly, as a cluster's genesis config does.
  chain.svm.setAccount({
    address: faucet.publicKey.toBase58() as Address,
    data: new Uint8Array(),
    executable: false,
    lamports: FAUCET_LAMPORTS as Lamports,
    programAddress: SystemProgram.programId.toBase58() as Address,
    space: 0n,
  });
  send(
    chain,
    faucet,
    [usdcMint],
    [
      SystemProgram.createAccount({
        fromPubkey: faucet.publicKey,
        newAccountPubkey: usdcMint.publicKey,
        space: MINT_SIZE,
        lamports: Number(chain.svm.minimumBalanceForRentExemption(BigInt(MINT_SIZE))),
        programId: TOKEN_PROGRAM_ID,
      }),
      createInitializeMint2Instruction(usdcMint.publicKey, USDC_DECIMALS, mintAuthority.publicKey, null),
    ],
  );
  for (const owner of [test, relayer]) {
    const ata = getAssociatedTokenAddressSync(usdcMint.publicKey, owner.publicKey);
    send(
      chain,
      faucet,
      [mintAuthority],
      [
        SystemProgram.transfer({
          fromPubkey: faucet.publicKey,
          toPubkey: owner.publicKey,
          lamports: FUNDING.lamports,
        }),
        createAssociatedTokenAccountInstruction(faucet.publicKey, ata, owner.publicKey, usdcMint.publicKey),
        createMintToInstruction(usdcMint.publicKey, ata, mintAuthority.publicKey, FUNDING.usdc),
      ],
    );
  }
  writeFileSync(
    file,
    JSON.stringify(Object.fromEntries(NAMES.map((n) => [n, Array.from(keys[n].secretKey)]))),
    { mode: 0o600 },
  );
  chain.tick(); // closes and writes the genesis block
  return keys;
}
