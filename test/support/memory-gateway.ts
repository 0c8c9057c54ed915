import Fastify, { type FastifyInstance } from "fastify";
import { serializerCompiler, validatorCompiler } from "fastify-type-provider-zod";
import type { Logger } from "pino";
import type { Registry } from "prom-client";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { standingRefundTypedData } from "../../src/chains/evm/typed-data/eip712.ts";
import { newBurner } from "../../src/client/burner.ts";
import { type Config, parseConfig } from "../../src/config.ts";
import type { SessionCommand } from "../../src/domain/commands.ts";
import { evolve } from "../../src/domain/evolve.ts";
import type { Address, SessionState } from "../../src/domain/types.ts";
import { sessionView } from "../../src/domain/view.ts";
import { createGateway, type GatewayDeps } from "../../src/gateway/app.ts";
import { toGatewayError } from "../../src/gateway/errors.ts";
import type {
  CommandPort,
  HealthPort,
  HealthReport,
  LiveUpdatesPort,
  SessionReadPort,
  SolanaPort,
} from "../../src/gateway/ports.ts";
import type { GatewayReply } from "../../src/records/gateway-replies.ts";
import type { SessionStateRecord } from "../../src/records/session-state.ts";
import { testDecide as decide } from "./money.ts";

/**
 * Small in-memory ports for gateway tests. The "owner" runs the pure session core (decide/evolve),
 * so replies look like the real ones; nothing here is the service, only what the gateway sees of it.
 */

export const DELEGATE: Address = "0x1111111111111111111111111111111111111111";
export const CHAIN_ID = 31337;
export const ALLOWED_ORIGIN = "https://app.example";
export const START_MS = 1_800_000_000_000;

export function testConfig(env: Record<string, string> = {}): Config {
  return parseConfig({
    EVM_CHAINS: JSON.stringify([
      { name: "local", chainId: CHAIN_ID, rpcUrl: "http://127.0.0.1:8545", delegate: DELEGATE },
    ]),
    CORS_ALLOWED_ORIGINS: ALLOWED_ORIGIN,
    ...env,
  });
}

export function memoryService() {
  const states = new Map<string, SessionState>();
  const listeners = new Map<string, Set<(record: SessionStateRecord) => void>>();
  const sent: SessionCommand[] = [];
  let failNext: Error | null = null;

  const record = (id: string): SessionStateRecord | null => {
    const state = states.get(id) ?? null;
    return state === null ? null : { version: state.version, session: sessionView(state) };
  };

  /** Pushes a state to the read model and to every live listener, as the projector would. */
  const publish = (next: SessionStateRecord) => {
    for (const listener of listeners.get(next.session.id) ?? []) listener(next);
  };

  const commands: CommandPort = {
    async send(command) {
      sent.push(command);
      if (failNext) {
        const err = failNext;
        failNext = null;
        throw err;
      }
      const id = command.data.sessionId;
      const decision = decide(command, states.get(id) ?? null);
      const reply = { gatewayId: "test", correlationId: command.metadata.commandId };
      if (!decision.ok) {
        const { code, message } = decision.rejection;
        return {
          ...reply,
          status: 409, // coarse "refused": the gateway answers from the code (schemas/README.md)
          code,
          message,
          session: record(id),
        } satisfies GatewayReply;
      }
      let state = states.get(id) ?? null;
      for (const event of decision.events) state = evolve(state, event);
      states.set(id, state);
      const now = record(id);
      if (now && decision.events.length > 0) publish(now);
      return { ...reply, status: 200, code: null, message: null, session: now };
    },
  };

  const sessions: SessionReadPort = { get: async (id) => record(id) };

  const live: LiveUpdatesPort = {
    subscribe(id, listener) {
      const set = listeners.get(id) ?? new Set();
      set.add(listener);
      listeners.set(id, set);
      return () => set.delete(listener);
    },
  };

  let report: HealthReport | Error = healthReport(true);
  const health: HealthPort = {
    check: async () => {
      if (report instanceof Error) throw report;
      return report;
    },
  };

  return {
    commands,
    sessions,
    live,
    health,
    sent,
    states,
    publish,
    record,
    listenerCount: (id: string) => listeners.get(id)?.size ?? 0,
    failNextSend: (err: Error) => {
      failNext = err;
    },
    setHealth: (next: HealthReport | Error) => {
      report = next;
    },
  };
}

export function healthReport(healthy: boolean): HealthReport {
  return {
    healthy,
    checks: {
      database: { ok: healthy, latency_ms: healthy ? 2 : null, error: healthy ? null : "unreachable" },
      indexers: [{ chain_id: CHAIN_ID, ok: true, last_block: 12, lag_seconds: 1, error: null }],
      relayers: [],
    },
  };
}

export async function testGateway(
  env: Record<string, string> = {},
  opts: { logger?: Logger; solana?: SolanaPort; metrics?: Registry; deps?: Partial<GatewayDeps> } = {},
) {
  const service = memoryService();
  let clock = START_MS;
  let ids = 0;
  const app = await createGateway({
    config: testConfig(env),
    commands: service.commands,
    sessions: service.sessions,
    live: service.live,
    health: service.health,
    newId: () => `00000000-0000-4000-8000-${String(++ids).padStart(12, "0")}`,
    now: () => clock,
    ...(opts.logger ? { logger: opts.logger } : {}),
    ...(opts.solana ? { solana: opts.solana } : {}),
    ...(opts.metrics ? { metrics: opts.metrics } : {}),
    ...opts.deps,
  });
  return {
    app,
    service,
    advance: (ms: number) => {
      clock += ms;
    },
  };
}

/**
 * A bare fastify app for one route plugin under test: the gateway's zod validation and its
 * `{ error }` answers with the registry's status, and nothing else of createGateway.
 */
export function bareGateway(): FastifyInstance {
  const app = Fastify();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler((err, _request, reply) => {
    const e = toGatewayError(err);
    reply.code(e.status).send({ error: e.message });
  });
  return app;
}

/** A POST /sessions body the gateway accepts: a real burner key signs the authorization and refund. */
export async function signedSessionBody(options: { deadline?: number; signer?: Hex } = {}) {
  const burner = await newBurner({ chainId: CHAIN_ID, delegate: DELEGATE }, options);
  const signer = options.signer ? privateKeyToAccount(options.signer) : burner.account;
  const to = "0x3333333333333333333333333333333333333333";
  const deadline = options.deadline ?? START_MS / 1000 + 86_400;
  const refundSig = await signer.signTypedData(
    standingRefundTypedData(CHAIN_ID, burner.address, { to, deadline: BigInt(deadline) }),
  );
  return {
    burner_address: burner.address,
    eip7702_auth: burner.eip7702Auth,
    destination_address: "0x4444444444444444444444444444444444444444",
    destination_chain: 8453,
    standing_refund: { to, deadline, signatures: { [String(CHAIN_ID)]: refundSig } },
  };
}
