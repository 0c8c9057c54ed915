import { sizedChunks } from "../support/chunks.ts";

/**
 * kafkajs writes one partition's messages of a produce request as one record batch, and the broker
 * refuses a batch over its message.max.bytes (1 MiB by default) every time, so a send that large
 * would be retried for ever. Every producer here sends in requests of at most this many bytes.
 */
export const MAX_REQUEST_BYTES = 512 * 1024;

/** Key and value bytes of a message, plus a record's own overhead. */
export const messageBytes = (m: { key: string; value: Buffer }): number =>
  m.value.length + Buffer.byteLength(m.key) + 64;

/** Consecutive runs of `items`, in order, each of at most MAX_REQUEST_BYTES (a larger item goes alone). */
export function requestChunks<T>(items: readonly T[], bytesOf: (item: T) => number): T[][] {
  return sizedChunks(items, bytesOf, MAX_REQUEST_BYTES);
}
