import { describe, expect, it } from "vitest";
import { createApiClient } from "../../src/client/api-client.ts";
import {
  ApiError,
  CLIENT_ERROR_CODES,
  ClientError,
  clientErrorCode,
  SessionEndedError,
  walletCall,
} from "../../src/client/errors.ts";
import type { Session } from "../../src/client/types.ts";

// The interface's client-side error codes: every error the library raises maps onto one of them.

const at = { method: "POST", url: "http://127.0.0.1:1/sessions/x/commit" };

describe("clientErrorCode", () => {
  it("maps the API client's kinds: network and timeout to network_error, http and parse to api_error", () => {
    const code = (kind: ApiError["kind"], status: number) =>
      clientErrorCode(new ApiError("x", { ...at, kind, status }));
    expect([
      code("network", 0),
      code("timeout", 0),
      code("http", 503),
      code("http", 400),
      code("parse", 200),
    ]).toEqual(["network_error", "network_error", "api_error", "api_error", "api_error"]);
  });

  it("keeps the library's own codes, and a session that expired is session_expired", () => {
    for (const code of CLIENT_ERROR_CODES) expect(clientErrorCode(new ClientError(code, "x"))).toBe(code);
    const session = { id: "s", status: "expired", error_message: null } as Session;
    expect(clientErrorCode(new SessionEndedError(session, "detected"))).toBe("session_expired");
    expect(clientErrorCode(new SessionEndedError({ ...session, status: "failed" }, "swept"))).toBe("unknown");
  });

  it("finds a wallet's refusal anywhere in the cause chain (EIP-1193 4001, viem's UserRejectedRequestError)", () => {
    const eip1193 = Object.assign(new Error("User rejected the request."), { code: 4001 });
    expect(clientErrorCode(eip1193)).toBe("wallet_rejected");
    expect(clientErrorCode(new Error("a", { cause: new Error("b", { cause: eip1193 }) }))).toBe(
      "wallet_rejected",
    );
    const viemStyle = Object.assign(new Error("rejected"), { name: "UserRejectedRequestError" });
    expect(clientErrorCode(viemStyle)).toBe("wallet_rejected");
  });

  it("calls anything else unknown", () => {
    expect(clientErrorCode(new Error("boom"))).toBe("unknown");
    expect(clientErrorCode("a string")).toBe("unknown");
    expect(clientErrorCode(Object.assign(new Error("x"), { code: "api_error" }))).toBe("unknown");
  });
});

describe("walletCall", () => {
  it("passes a signature through, and turns failures into wallet_rejected or wallet_error", async () => {
    await expect(walletCall("x", async () => "0xsig")).resolves.toBe("0xsig");
    const refused = walletCall("the Intent", () =>
      Promise.reject(Object.assign(new Error("no"), { code: 4001 })),
    );
    await expect(refused).rejects.toMatchObject({
      code: "wallet_rejected",
      shortMessage: "the wallet refused to sign the Intent",
    });
    await expect(walletCall("x", () => Promise.reject(new Error("locked")))).rejects.toMatchObject({
      code: "wallet_error",
      cause: { message: "locked" },
    });
  });
});

describe("createApiClient's configuration", () => {
  it("refuses what cannot work with config_error, at once", () => {
    const bad = [
      { baseUrl: "127.0.0.1:8080" },
      { baseUrl: "ftp://example.com" },
      { baseUrl: "http://127.0.0.1:8080", timeout: 0 },
      { baseUrl: "http://127.0.0.1:8080", timeout: Number.NaN },
      { baseUrl: "http://127.0.0.1:8080", retry: { attempts: 0 } },
      { baseUrl: "http://127.0.0.1:8080", retry: { baseMs: -1 } },
    ];
    for (const config of bad) {
      let err: unknown;
      try {
        createApiClient(config);
      } catch (e) {
        err = e;
      }
      expect(err, JSON.stringify(config)).toMatchObject({ name: "ClientError", code: "config_error" });
    }
    expect(createApiClient({ baseUrl: "https://pay.example.com/api/" }).baseUrl).toBe(
      "https://pay.example.com/api",
    );
  });
});
