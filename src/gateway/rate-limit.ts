import { isIPv4, isIPv6 } from "node:net";
import type { FastifyReply, FastifyRequest } from "fastify";
import { gatewayError } from "./errors.ts";

declare module "fastify" {
  interface FastifyContextConfig {
    /** true: the route does not spend rate-limit tokens (GET /health). */
    rateLimitExempt?: boolean;
  }
}

/**
 * Token bucket per client: `ratePerSecond` tokens refill continuously up to `burst`; a request spends
 * one. A bucket that has refilled to full is the same as no bucket, so full buckets are dropped and
 * memory only holds clients seen within the last burst/rate seconds, capped by `maxBuckets`.
 */
export interface RateLimiterOptions {
  ratePerSecond: number;
  burst: number;
  /** Unix ms; injected so tests can move time. */
  now?: () => number;
  /** Hard cap on tracked clients; past it the least recently seen bucket is dropped. */
  maxBuckets?: number;
}

export type TakeResult = { allowed: true; remaining: number } | { allowed: false; retryAfterSeconds: number };

export interface RateLimiter {
  take(key: string): TakeResult;
  /** Tracked buckets, for tests and metrics. */
  size(): number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const { ratePerSecond: rate, burst } = options;
  const now = options.now ?? Date.now;
  const maxBuckets = options.maxBuckets ?? 100_000;
  // After this long without a request any bucket is full again.
  const refillMs = (burst / rate) * 1000;
  // Map order is least recently used first: every take re-inserts its key at the end.
  const buckets = new Map<string, Bucket>();
  let lastSweep = now();

  const level = (b: Bucket, t: number) => Math.min(burst, b.tokens + (Math.max(0, t - b.at) * rate) / 1000);

  function sweep(t: number): void {
    for (const [key, b] of buckets) if (level(b, t) >= burst) buckets.delete(key);
    lastSweep = t;
  }

  return {
    take(key) {
      const t = now();
      if (t - lastSweep >= refillMs) sweep(t);
      const b = buckets.get(key);
      let tokens = b ? level(b, t) : burst;
      let result: TakeResult;
      if (tokens >= 1) {
        tokens -= 1;
        result = { allowed: true, remaining: Math.floor(tokens) };
      } else {
        result = { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - tokens) / rate)) };
      }
      buckets.delete(key);
      buckets.set(key, { tokens, at: t });
      if (buckets.size > maxBuckets) {
        const oldest = buckets.keys().next();
        if (!oldest.done) buckets.delete(oldest.value);
      }
      return result;
    },
    size: () => buckets.size,
  };
}

/**
 * The bucket key for a peer address. IPv4 (also IPv4-mapped IPv6) is keyed by address; IPv6 by its
 * /64, because one subscriber usually holds a whole /64 and could otherwise rotate addresses freely.
 */
export function clientKey(ip: string): string {
  const mapped = ip.toLowerCase().startsWith("::ffff:") ? ip.slice(7) : null;
  if (mapped !== null && isIPv4(mapped)) return mapped;
  if (!isIPv6(ip)) return ip;
  const address = ip.split("%")[0] ?? ip;
  const [head = "", tail] = address.split("::");
  const groups = (part: string) => (part === "" ? [] : part.split(":"));
  const count = (gs: string[]) => gs.reduce((n, g) => n + (g.includes(".") ? 2 : 1), 0);
  const h = groups(head);
  const t = tail === undefined ? [] : groups(tail);
  const full = [...h, ...Array<string>(8 - count(h) - count(t)).fill("0"), ...t];
  const prefix = full.slice(0, 4).map((g) => Number.parseInt(g, 16).toString(16));
  return `${prefix.join(":")}::/64`;
}

/** onRequest hook; register it after @fastify/cors so a 429 still carries the CORS headers. */
export function rateLimitHook(limiter: RateLimiter) {
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    if (request.routeOptions.config.rateLimitExempt === true) return;
    const result = limiter.take(clientKey(request.ip));
    if (!result.allowed) {
      const retryAfter = String(result.retryAfterSeconds);
      throw gatewayError("rate_limited", `rate limit exceeded; retry after ${retryAfter} s`, {
        headers: { "retry-after": retryAfter },
      });
    }
  };
}
