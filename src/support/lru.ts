/**
 * A bounded map that forgets the least recently written key first. A Map keeps insertion order, so
 * re-inserting on every write keeps the oldest key at the front.
 */
export interface Lru<K, V> {
  get(key: K): V | undefined;
  set(key: K, value: V): void;
  readonly size: number;
}

export function createLru<K, V>(max: number): Lru<K, V> {
  const map = new Map<K, V>();
  return {
    get: (key) => map.get(key),
    set(key, value) {
      map.delete(key);
      map.set(key, value);
      if (map.size > max) {
        const oldest = map.keys().next();
        if (!oldest.done) map.delete(oldest.value);
      }
    },
    get size() {
      return map.size;
    },
  };
}
