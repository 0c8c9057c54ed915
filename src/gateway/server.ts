import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import cors, { type FastifyCorsOptions } from "@fastify/cors";
import swagger from "@fastify/swagger";
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from "fastify";
import { serializerCompiler, validatorCompiler } from "fastify-type-provider-zod";
import type { Logger } from "pino";
import type { Config } from "../config.ts";
import { fromClientError, type GatewayError, gatewayError, toGatewayError } from "./errors.ts";
import { createRateLimiter, rateLimitHook } from "./rate-limit.ts";
import { requestLogSerializers } from "./request-log.ts";
import { openApiOptions } from "./routes/docs.ts";
import { countRequest } from "./routes/metrics.ts";

export interface ServerOptions {
  config: Config;
  logger?: Logger | undefined;
  /** Count every request (the metrics port serves them, never the API port). */
  countRequests: boolean;
  /** Unix ms, for the rate limiter; Date.now by default. */
  now?: (() => number) | undefined;
}

/**
 * The gateway's HTTP server before any route: JSON bodies only, one `{ error }` body for every
 * refusal (the framework's and the HTTP parser's included), a 503 while closing, CORS, the per-peer
 * rate limit and the OpenAPI generator. The areas' routes are registered on it.
 */
export async function createServer(opts: ServerOptions): Promise<FastifyInstance> {
  const { config } = opts;
  // Request lines name the route and the session, never the URL or a header (request-log.ts).
  const logger: FastifyBaseLogger | undefined = opts.logger?.child(
    {},
    { serializers: requestLogSerializers },
  );
  const app = Fastify({
    ...(logger ? { loggerInstance: logger } : { logger: false }),
    bodyLimit: config.BODY_LIMIT_BYTES,
    // request.ip is the socket's peer address; X-Forwarded-For is ignored (there is no TRUST_PROXY setting).
    trustProxy: false,
    // Errors raised before routing (a malformed URL) get the same { error } body as the rest...
    frameworkErrors: (err, request, reply) => {
      sendError(request, reply, toGatewayError(err));
    },
    // ...and so do those of the HTTP parser, and requests that arrive while closing (hook below).
    clientErrorHandler: answerClientError,
    return503OnClosing: false,
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  acceptJsonOnly(app);

  app.setErrorHandler((err, request, reply) => {
    sendError(request, reply, toGatewayError(err, { bodyLimitBytes: config.BODY_LIMIT_BYTES }));
  });
  app.setNotFoundHandler((request, reply) => {
    sendError(request, reply, gatewayError("route_not_found"));
  });

  let closing = false;
  app.addHook("preClose", async () => {
    closing = true;
  });
  app.addHook("onRequest", async () => {
    if (closing)
      throw gatewayError("shutting_down", undefined, {
        headers: { connection: "close", "retry-after": "1" },
      });
  });

  // CORS first: its onRequest hook sets the headers before the rate limiter can refuse, so a 429
  // still reaches browser code. Preflights are answered by CORS and spend no tokens.
  await app.register(cors, corsOptions(config, app.log));
  const limiter = createRateLimiter({
    ratePerSecond: config.RATE_LIMIT_PER_SECOND,
    burst: config.RATE_LIMIT_BURST,
    ...(opts.now ? { now: opts.now } : {}),
  });
  app.addHook("onRequest", rateLimitHook(limiter));
  if (opts.countRequests) app.addHook("onResponse", countRequest);
  await app.register(swagger, openApiOptions);
  return app;
}

function sendError(request: FastifyRequest, reply: FastifyReply, err: GatewayError): void {
  if (err.code === "internal") request.log.error({ err: err.cause ?? err }, "request failed");
  else if (err.code === "service_unavailable") request.log.warn({ err: err.cause }, err.message);
  else request.log.info({ code: err.code, status: err.status }, err.message);
  reply.code(err.status).headers(err.headers).send({ error: err.message });
}

function answerClientError(err: Error, socket: Duplex): void {
  if ((err as NodeJS.ErrnoException).code === "ECONNRESET" || socket.destroyed) return;
  const e = fromClientError(err);
  const body = JSON.stringify({ error: e.message });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${e.status} ${STATUS_CODES[e.status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

/** Bodies are JSON and nothing else (any other media type is a 415); no key may name the prototype. */
export function acceptJsonOnly(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) => {
    try {
      done(null, parseJson(String(body)));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
}

const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);

/** JSON.parse, refusing any key that could reach an object's prototype, at any depth. */
export function parseJson(text: string): unknown {
  if (text.length === 0) throw gatewayError("invalid_json", "the body is empty");
  try {
    return JSON.parse(text, (key, value) => {
      if (FORBIDDEN_KEYS.has(key)) throw gatewayError("forbidden_key");
      return value;
    });
  } catch (err) {
    if (err instanceof Error && err.name === "GatewayError") throw err;
    throw gatewayError("invalid_json", undefined, { cause: err });
  }
}

function corsOptions(config: Config, log: FastifyInstance["log"]): FastifyCorsOptions {
  // Browsers send origins without a trailing slash; a wildcard is never honoured.
  const origins = config.CORS_ALLOWED_ORIGINS.map((o) => o.replace(/\/+$/, ""));
  if (origins.includes("*")) log.warn("CORS_ALLOWED_ORIGINS: '*' is ignored; list the allowed origins");
  const allowed = origins.filter((o) => o !== "*");
  return {
    // false: no CORS headers at all, and preflights fall through to a 404.
    origin: allowed.length > 0 ? allowed : false,
    methods: ["GET", "HEAD", "POST"],
    allowedHeaders: ["Authorization", "X-Client-Secret", "Idempotency-Key", "Content-Type"],
    exposedHeaders: ["Retry-After"],
    maxAge: 600,
    // A malformed preflight gets the ordinary treatment instead of a text/plain 400.
    strictPreflight: false,
  };
}
