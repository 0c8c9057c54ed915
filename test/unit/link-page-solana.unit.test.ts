import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  decodeTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
  TOKEN_PROGRAM_ID,
} from "@solana/spl-token";
import { Keypair, SystemProgram } from "@solana/web3.js";
import { describe, expect, it } from "vitest";
import {
  solanaWallet,
  usdcTransfer,
  walletStandardChain,
} from "../../src/gateway/link-page/solana-transfer.ts";

// The hosted page's Solana pieces that need no browser (src/gateway/link-page/solana-transfer.ts):
// which refund addresses it takes, the Wallet Standard chain it asks a wallet for, and the one
// transfer the payer's wallet signs.

const wallet = Keypair.generate().publicKey;
const burner = Keypair.generate().publicKey;
const mint = Keypair.generate().publicKey;

describe("a Solana refund address", () => {
  it("is a wallet: an on-curve key in PublicKey's spelling", () => {
    expect(solanaWallet(wallet.toBase58())).toBe(wallet.toBase58());
  });

  it("refuses a program-derived address (no key signs for it), malformed base58, an EVM address, nothing", () => {
    const ata = getAssociatedTokenAddressSync(mint, wallet).toBase58();
    for (const given of [ata, `${wallet.toBase58()}0`, "0x90F79bf6EB2c4f870365E785982E1f101E93b906", "", "1"])
      expect(solanaWallet(given), given).toBeNull();
  });

  it("refuses another spelling of the same bytes (leading zero bytes written as '1's or not)", () => {
    // The system program's address is 32 zero bytes: 32 '1's. Fewer '1's is not its spelling.
    expect(solanaWallet(SystemProgram.programId.toBase58().slice(1))).toBeNull();
  });
});

describe("the Wallet Standard chain of a Solana chain id", () => {
  it("mainnet and the local node; any other id is refused", () => {
    expect(walletStandardChain(792703809)).toBe("solana:mainnet");
    expect(walletStandardChain(792703810)).toBe("solana:localnet");
    expect(() => walletStandardChain(31337)).toThrow(RangeError);
  });
});

describe("the payer's USDC transfer to the burner", () => {
  const tx = usdcTransfer({
    from: wallet.toBase58(),
    to: burner.toBase58(),
    mint: mint.toBase58(),
    amount: 10_000_000n,
    blockhash: Keypair.generate().publicKey.toBase58(),
  });
  const burnerAccount = getAssociatedTokenAddressSync(mint, burner);

  it("the wallet pays the fee and is the only signer", () => {
    expect(tx.feePayer?.equals(wallet)).toBe(true);
    const signers = tx
      .compileMessage()
      .accountKeys.slice(0, tx.compileMessage().header.numRequiredSignatures);
    expect(signers.map((k) => k.toBase58())).toEqual([wallet.toBase58()]);
  });

  it("opens the burner's USDC account idempotently, then moves exactly the amount into it, checked at 6 decimals", () => {
    const [open, transfer] = tx.instructions;
    expect(open?.programId.equals(ASSOCIATED_TOKEN_PROGRAM_ID)).toBe(true);
    // The idempotent create is instruction 1 of the ATA program (0 fails on an existing account).
    expect([...(open?.data ?? [])]).toEqual([1]);
    expect(open?.keys.map((k) => k.pubkey.toBase58()).slice(0, 4)).toEqual([
      wallet.toBase58(),
      burnerAccount.toBase58(),
      burner.toBase58(),
      mint.toBase58(),
    ]);
    if (!transfer) throw new Error("no transfer");
    expect(transfer.programId.equals(TOKEN_PROGRAM_ID)).toBe(true);
    const decoded = decodeTransferCheckedInstruction(transfer);
    expect(decoded.data).toMatchObject({ amount: 10_000_000n, decimals: 6 });
    expect(decoded.keys.source.pubkey.equals(getAssociatedTokenAddressSync(mint, wallet))).toBe(true);
    expect(decoded.keys.destination.pubkey.equals(burnerAccount)).toBe(true);
    expect(decoded.keys.owner.pubkey.equals(wallet)).toBe(true);
    expect(tx.instructions).toHaveLength(2);
  });
});
