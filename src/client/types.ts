import type { z } from "zod";
import type {
  createSessionBodySchema,
  createSessionResponseSchema,
  sessionSchema,
} from "../gateway/schemas.ts";

// The wire types of the client, inferred from the gateway's own zod schemas (src/gateway/schemas.ts),
// so they cannot drift from what the service validates and serialises. Type-only imports: they are
// erased when the client is compiled or bundled, so neither zod nor the gateway (nor fastify) is
// loaded by the client at run time. A unit test (client-bundle) holds the client to that.

/** The Session object of `GET /sessions/:id` and of every `status` event. */
export type Session = z.output<typeof sessionSchema>;
export type SessionStatus = Session["status"];

/** The body of `POST /sessions` as a caller writes it (`flow` may be left out). */
export type CreateSessionBody = z.input<typeof createSessionBodySchema>;

/** The answer of `POST /sessions`: `{ id, status, expires_at }`. */
export type CreateSessionResponse = z.output<typeof createSessionResponseSchema>;

// The settlement routes' wire forms (interface.md: Intent, Refund, Standing refund, commit, quote,
// refund, standing-refund, refund-all). Written from the interface; every uint256 is a decimal string.

type Address = `0x${string}`;
type Hex = `0x${string}`;

/** The Intent in wire form (snake_case), as `POST /sessions/:id/commit` takes it. */
export interface IntentWire {
  dest_chain_id: number;
  dest_addr: Address;
  /** The on-chain floor of the swap's output, decimal. */
  min_out: string;
  /** Unix seconds. */
  deadline: number;
  /** 32 bytes of 0x hex. */
  salt: Hex;
  /** The detected token. */
  in_token: Address;
  /** The detected amount, decimal. */
  max_in: string;
  app_fee_bps: number;
  app_fee_recipient: Address;
}

/** The body of `POST /sessions/:id/commit`. */
export interface CommitBody {
  burner: Address;
  eip7702_auth: Session["eip7702_auth"];
  intent: IntentWire;
  /** Source chain id (decimal string key) to the Intent's EIP-712 signature on that chain. */
  intent_sigs: Record<string, Hex>;
}

/** The answer of `POST /sessions/:id/commit`. */
export interface CommitResponse {
  id: string;
  status: SessionStatus;
  /** The platform fee resolved at commit, basis points. */
  fee_bps: number;
  app_fee_bps: number;
  app_fee_recipient: Address;
}

/** The answer of `GET /sessions/:id/quote`: decimal amounts of USDC on the source chain. */
export interface Quote {
  estimated_out: string;
  suggested_min_out: string;
}

/** The body of `POST /sessions/:id/refund`: a burner-signed Refund for one chain. */
export interface RefundBody {
  token: Address;
  to: Address;
  amount: string;
  deadline: number;
  salt: Hex;
  signature: Hex;
  chain_id: number;
}

/** The answer of `POST /sessions/:id/refund`. */
export interface RefundResponse {
  tx_hash: Hex;
  to: Address;
  token: Address;
}

/** A standing refund: one recipient, one deadline, one burner signature per source chain. */
export interface StandingRefundWire {
  to: Address;
  deadline: number;
  signatures: Record<string, Hex>;
}

/** The body of `POST /sessions/:id/refund-all`: an ERC-20, or `native` for raw ETH. */
export interface RefundAllBody {
  token: Address | "native";
  chain_id: number;
}

/** The answer of `POST /sessions/:id/refund-all`. */
export interface RefundAllResponse {
  tx_hash: Hex;
  refund_address: Address;
  token: string;
  amount: "full";
}
