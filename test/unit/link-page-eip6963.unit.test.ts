import { describe, expect, it } from "vitest";
import { announcedWallet } from "../../src/gateway/link-page/eip6963.ts";

// The hosted page's EIP-6963 discovery (src/gateway/link-page/eip6963.ts), the part that needs no
// browser: which `eip6963:announceProvider` details it takes as a wallet. Anything on the page can
// dispatch that event, so only the standard's shape is taken. The browser side: the EVM page e2e.

const provider = { request: async () => null };
const info = {
  uuid: "350670db-19fa-4704-a166-e52e178b59d2",
  name: "Example Wallet",
  icon: "data:image/svg+xml;base64,PHN2Zy8+",
  rdns: "com.example.wallet",
};

describe("an EIP-6963 announcement", () => {
  it("is a wallet with its name, icon, rdns and provider", () => {
    expect(announcedWallet({ info, provider })).toEqual({ ...info, provider });
  });

  it("keeps a name to 64 characters, trimmed, and an icon only as a data: image the page's CSP shows", () => {
    const long = announcedWallet({ info: { ...info, name: `  ${"w".repeat(80)} ` }, provider });
    expect(long?.name).toBe("w".repeat(64));
    for (const icon of ["https://example.com/icon.png", "javascript:alert(1)", 7, undefined])
      expect(announcedWallet({ info: { ...info, icon }, provider })?.icon, String(icon)).toBe("");
  });

  it("is refused without a provider that has request, or without the standard's uuid, name and rdns", () => {
    for (const detail of [
      null,
      "wallet",
      { info },
      { info, provider: {} },
      { provider },
      { info: { ...info, uuid: "" }, provider },
      { info: { ...info, rdns: 1 }, provider },
      { info: { ...info, name: "  " }, provider },
    ])
      expect(announcedWallet(detail), JSON.stringify(detail)).toBeNull();
  });
});
