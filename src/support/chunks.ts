/**
 * Consecutive runs of `items`, in order, each of at most `maxBytes` as `bytesOf` counts them (an
 * item larger than that goes alone): requests that a server refuses above a size (a Kafka record
 * batch, a Cassandra batch) are cut with it.
 */
export function sizedChunks<T>(items: readonly T[], bytesOf: (item: T) => number, maxBytes: number): T[][] {
  const chunks: T[][] = [];
  let chunk: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = bytesOf(item);
    if (chunk.length > 0 && bytes + size > maxBytes) {
      chunks.push(chunk);
      chunk = [];
      bytes = 0;
    }
    chunk.push(item);
    bytes += size;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}
