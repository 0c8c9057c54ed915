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
