/**
 * Calls `each` on every item, `width` calls in flight at a time; resolves when all are done and
 * rejects with the first failure. For tests and benchmarks that send many requests to a server
 * without opening a connection per item.
 */
export async function eachConcurrently<T>(
  items: Iterable<T>,
  width: number,
  each: (item: T) => Promise<void>,
): Promise<void> {
  // One iterator shared by the callers: each item is taken once.
  const queue = items[Symbol.iterator]();
  const caller = async () => {
    for (let next = queue.next(); !next.done; next = queue.next()) await each(next.value);
  };
  await Promise.all(Array.from({ length: width }, caller));
}
