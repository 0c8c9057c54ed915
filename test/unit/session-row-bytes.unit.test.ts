import { describe, expect, it } from "vitest";
import { rowBytes, type SessionRow } from "../../src/store/sessions.ts";

const row = (name: string): SessionRow => ({
  id: "6f1c2f0e-0000-4000-8000-000000000000",
  version: 1,
  status: "awaiting_deposit",
  merchantId: null,
  burner: null,
  viewJson: JSON.stringify({ name }),
  stateJson: JSON.stringify({ name }),
  updatedAt: 0,
});

describe("a session row's size for Cassandra's batch limit", () => {
  it("counts non-ASCII text in UTF-8 bytes, not characters", () => {
    // "é" is one character and two bytes, in each of the two JSON columns.
    expect(rowBytes(row("é".repeat(100))) - rowBytes(row("e".repeat(100)))).toBe(200);
  });
});
