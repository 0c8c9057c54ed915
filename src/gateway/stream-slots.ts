/**
 * Open event streams per client. A stream holds a socket, a subscription and a timer for as long as
 * the client keeps it, and costs the client nothing once opened, so each client (the rate limiter's
 * key: an IPv4 address or an IPv6 /64) may hold at most `maxPerClient` at once, and each stream
 * lives at most `lifetimeMs` (then the client reconnects, and pays a rate-limit token again).
 * Memory holds only clients with an open stream.
 */
export interface StreamSlotsOptions {
  maxPerClient: number;
  lifetimeMs: number;
  /** Unix ms; injected so tests can move time. */
  now?: () => number;
}

export type Acquired = { ok: true; release: () => void } | { ok: false; retryAfterSeconds: number };

export interface StreamSlots {
  acquire(client: string): Acquired;
  /** Open streams of a client, for tests and metrics. */
  openBy(client: string): number;
}

export function createStreamSlots(options: StreamSlotsOptions): StreamSlots {
  const { maxPerClient, lifetimeMs } = options;
  const now = options.now ?? Date.now;
  // Per client, the open streams' start times (unix ms), oldest first.
  const open = new Map<string, number[]>();

  return {
    acquire(client) {
      const starts = open.get(client) ?? [];
      const t = now();
      if (starts.length >= maxPerClient) {
        // The oldest stream ends by its lifetime at the latest: a slot is free by then.
        const oldest = starts[0] ?? t;
        return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((oldest + lifetimeMs - t) / 1000)) };
      }
      starts.push(t);
      open.set(client, starts);
      let released = false;
      return {
        ok: true,
        release() {
          if (released) return;
          released = true;
          const i = starts.indexOf(t);
          if (i >= 0) starts.splice(i, 1);
          if (starts.length === 0 && open.get(client) === starts) open.delete(client);
        },
      };
    },
    openBy: (client) => open.get(client)?.length ?? 0,
  };
}
