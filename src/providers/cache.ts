import { createLru } from "../support/lru.ts";

/**
 * A provider's answers kept for `ttlMs` (PROVIDER_CACHE_TTL_MS), at most `max` of them. Concurrent
 * asks for one key share one request (single flight), so a burst of identical requests costs the
 * provider one call; a failure is not kept, so the next ask tries again.
 */
export interface ProviderCache {
  get<T>(key: string, load: () => Promise<T>): Promise<T>;
}

export function createProviderCache(opts: { ttlMs: number; max: number; now?: () => number }): ProviderCache {
  const now = opts.now ?? Date.now;
  const entries = createLru<string, { at: number; value: Promise<unknown> }>(opts.max);
  return {
    get<T>(key: string, load: () => Promise<T>): Promise<T> {
      const hit = entries.get(key);
      if (hit && now() - hit.at < opts.ttlMs) return hit.value as Promise<T>;
      const value = load();
      const entry = { at: now(), value };
      entries.set(key, entry);
      value.catch(() => {
        // Forget a failure, unless a newer ask has replaced it already.
        if (entries.get(key) === entry) entries.set(key, { at: Number.NEGATIVE_INFINITY, value });
      });
      return value;
    },
  };
}
