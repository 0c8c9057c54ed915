/**
 * Counts the Kafka requests a client sends, by API, from the bytes it writes to its sockets: every
 * request is a 4-byte size followed by its 2-byte API key. kafkajs takes a `socketFactory`, so a
 * test gives its client one that counts (the broker's own request metrics need JMX).
 */
import net from "node:net";
import type { ISocketFactory } from "kafkajs";

/** The APIs a producer, a consumer or an admin of ours sends (Kafka protocol API keys). */
const API_NAMES: Record<number, string> = {
  0: "Produce",
  1: "Fetch",
  2: "ListOffsets",
  3: "Metadata",
  8: "OffsetCommit",
  9: "OffsetFetch",
  10: "FindCoordinator",
  11: "JoinGroup",
  12: "Heartbeat",
  13: "LeaveGroup",
  14: "SyncGroup",
  15: "DescribeGroups",
  18: "ApiVersions",
  19: "CreateTopics",
  22: "InitProducerId",
  24: "AddPartitionsToTxn",
  25: "AddOffsetsToTxn",
  26: "EndTxn",
  28: "TxnOffsetCommit",
};

export const apiName = (key: number): string => API_NAMES[key] ?? `api${key}`;

export type RequestCounts = Map<string, number>;

export interface RequestCounter {
  /** Requests sent so far by every socket this factory made, by API name. */
  readonly counts: RequestCounts;
  /** What was sent since `before` (a copy of `counts` taken earlier). */
  since(before: RequestCounts): RequestCounts;
  /** The sockets made so far (a test may break one to see the client recover). */
  readonly sockets: net.Socket[];
}

/** Watches `socket`'s writes and adds each request it frames to `counts`. */
export function countWrites(socket: net.Socket, counts: RequestCounts): void {
  // A request may in principle span writes: keep its first 6 bytes, then skip the rest of its size.
  let head = Buffer.alloc(0);
  let skip = 0;
  const observe = (chunk: Buffer) => {
    let at = 0;
    while (at < chunk.length) {
      if (skip > 0) {
        const n = Math.min(skip, chunk.length - at);
        skip -= n;
        at += n;
        continue;
      }
      const take = Math.min(6 - head.length, chunk.length - at);
      head = Buffer.concat([head, chunk.subarray(at, at + take)]);
      at += take;
      if (head.length < 6) break;
      const name = apiName(head.readInt16BE(4));
      counts.set(name, (counts.get(name) ?? 0) + 1);
      skip = head.readInt32BE(0) - 2;
      head = Buffer.alloc(0);
    }
  };
  const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
  socket.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (Buffer.isBuffer(chunk)) observe(chunk);
    else if (typeof chunk === "string") observe(Buffer.from(chunk, "binary"));
    return write(chunk, ...rest);
  }) as typeof socket.write;
}

/** A plaintext socket factory (what kafkajs makes by default) whose sockets count their requests. */
export function countingSocketFactory(): { socketFactory: ISocketFactory; counter: RequestCounter } {
  const counts: RequestCounts = new Map();
  const sockets: net.Socket[] = [];
  const socketFactory: ISocketFactory = ({ host, port, onConnect }) => {
    const socket = net.connect({ host, port }, onConnect);
    socket.setKeepAlive(true, 60_000);
    countWrites(socket, counts);
    sockets.push(socket);
    return socket;
  };
  return {
    socketFactory,
    counter: {
      counts,
      sockets,
      since(before) {
        const out: RequestCounts = new Map();
        for (const [name, n] of counts) {
          const d = n - (before.get(name) ?? 0);
          if (d > 0) out.set(name, d);
        }
        return out;
      },
    },
  };
}
