import { describe, expect, it } from "vitest";
import { eip681Uri, solanaPayUri } from "../../src/gateway/link-page/payment-uri.ts";

// Each builder against its spec's own examples (EIP-681 "Examples"; Solana Pay's transfer request
// "Examples"), then against what the page asks of it.

describe("EIP-681 payment requests", () => {
  it("an ERC-20 transfer: the spec's example, with the chain named", () => {
    // EIP-681: ethereum:0x89205a3a3b2a69de6dbf7f01ed13b2108b2c43e7/transfer?address=0x8e23ee67d1332ad560396262c48ffbb01f93d052&uint256=1
    expect(
      eip681Uri({
        token: "0x89205a3a3b2a69de6dbf7f01ed13b2108b2c43e7",
        chainId: 1,
        to: "0x8e23ee67d1332ad560396262c48ffbb01f93d052",
        amount: 1n,
      }),
    ).toBe(
      "ethereum:0x89205a3a3b2a69de6dbf7f01ed13b2108b2c43e7@1/transfer?address=0x8e23ee67d1332ad560396262c48ffbb01f93d052&uint256=1",
    );
  });

  it("the coin: a value transfer to the address (the spec's 2.014 ETH, in wei)", () => {
    // EIP-681: ethereum:0xfb6916095ca1df60bb79Ce92ce3Ea74c37c5d359?value=2.014e18
    expect(
      eip681Uri({
        token: "0x0000000000000000000000000000000000000000",
        chainId: 1,
        to: "0xfb6916095ca1df60bb79Ce92ce3Ea74c37c5d359",
        amount: 2_014_000_000_000_000_000n,
      }),
    ).toBe("ethereum:0xfb6916095ca1df60bb79Ce92ce3Ea74c37c5d359@1?value=2014000000000000000");
  });

  it("10 USDC on a local chain: the amount in base units, never a decimal", () => {
    expect(
      eip681Uri({
        token: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
        chainId: 31337,
        to: "0x90F79bf6EB2c4f870365E785982E1f101E93b906",
        amount: 10_000_000n,
      }),
    ).toBe(
      "ethereum:0x5FbDB2315678afecb367f032d93F642f64180aa3@31337/transfer?address=0x90F79bf6EB2c4f870365E785982E1f101E93b906&uint256=10000000",
    );
    expect(() => eip681Uri({ token: "0x1", chainId: 1, to: "0x2", amount: -1n })).toThrow(RangeError);
  });
});

describe("Solana Pay transfer requests", () => {
  it("the spec's SPL token example (0.01 USDC), with a reference", () => {
    // Solana Pay: solana:mvines9iiHiQTysrwkJjGf2gb9Ex9jXJX8ns3qwf2kN?amount=0.01&spl-token=EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v
    expect(
      solanaPayUri({
        recipient: "mvines9iiHiQTysrwkJjGf2gb9Ex9jXJX8ns3qwf2kN",
        amount: 10_000n,
        decimals: 6,
        splToken: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
        reference: "82ZJ7nbGpixjeDCmEhUcmwXYfvurzAgGdtSMuHnUgyny",
      }),
    ).toBe(
      "solana:mvines9iiHiQTysrwkJjGf2gb9Ex9jXJX8ns3qwf2kN?amount=0.01&spl-token=EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v&reference=82ZJ7nbGpixjeDCmEhUcmwXYfvurzAgGdtSMuHnUgyny",
    );
  });

  it("amounts as the spec writes them: whole numbers bare, a leading zero below one, no exponent", () => {
    const uri = (amount: bigint) =>
      solanaPayUri({ recipient: "R", amount, decimals: 6, splToken: "M", reference: "K" });
    expect(uri(1_000_000n)).toBe("solana:R?amount=1&spl-token=M&reference=K");
    expect(uri(25_500_000n)).toContain("amount=25.5&");
    expect(uri(1n)).toContain("amount=0.000001&");
    expect(() => uri(-1n)).toThrow(RangeError);
  });
});
