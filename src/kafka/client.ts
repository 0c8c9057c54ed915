import { type Consumer, type ISocketFactory, Kafka, type KafkaConfig, logLevel } from "kafkajs";

/**
 * Every import of kafkajs lives in src/kafka/: the client has had no release since 2023, so the rest
 * of the service only sees the small surface exported from here and the client can be swapped.
 */

export interface KafkaSettings {
  brokers: string[];
  clientId: string;
  /**
   * How long a consumer-group member may stay silent before the group hands its partitions to the
   * others (kafkajs's sessionTimeout; default 3 s, which the broker must allow: its
   * group.min.session.timeout.ms, 6 s by default, at most this). A member killed with -9 holds its
   * partitions this long, so it is also how long their takeover waits.
   */
  groupSessionTimeoutMs?: number;
  log?: (level: Level, message: string, fields: object) => void;
  /** How connections to the brokers are opened (default: plain TCP); tests count requests with it. */
  socketFactory?: ISocketFactory;
}

declare const opaque: unique symbol;
/**
 * A connection to the brokers. Opaque outside src/kafka/: the rest of the service passes it to this
 * folder's functions and never sees a kafkajs type, so the client can be swapped here alone.
 */
export interface KafkaClient {
  readonly [opaque]: "KafkaClient";
}

/** The kafkajs client behind a KafkaClient: for src/kafka/, and for tests that drive the brokers by hand. */
export const kafkajs = (client: KafkaClient): Kafka => client as unknown as Kafka;

/** A kafkajs client made elsewhere (a test's own connection settings) as a KafkaClient. */
export const fromKafkajs = (kafka: Kafka): KafkaClient => kafka as unknown as KafkaClient;

/**
 * kafkajs's messages for broker responses it retries by itself, which it still logs at error level:
 * CONCURRENT_TRANSACTIONS (51), sent while the broker finishes the previous transaction of the same
 * id; and the coordinator codes 14-16, sent on every clean start while the broker loads
 * `__consumer_offsets` or `__transaction_state` and elects their coordinators. If kafkajs's retries
 * run out, the operation fails and its caller logs that, at error level.
 */
const RETRIED_RESPONSES = [
  "The producer attempted to update a transaction while another concurrent operation on the same transaction was ongoing",
  "The coordinator is loading and hence can't process requests for this group",
  "The group coordinator is not available",
  "This is not the correct coordinator for this group",
];

type Level = "error" | "warn" | "info" | "debug";

/**
 * The level a kafkajs line is logged at, or null to drop it. A healthy start logs nothing at error:
 * a retried response is debug, and a consumer that crashed on one (kafkajs restarts it at once and
 * says so) is a warning.
 */
function kafkaLogLevel(level: number, namespace: string, message: string, error: unknown): Level | null {
  // Advisory printed for every idempotent producer with bounded retries. Ours are bounded on
  // purpose (a send must fail rather than hang); duplicates are prevented by transactions and
  // the session core's idempotence, not by retrying forever.
  if (message.startsWith("Limiting retries for the idempotent producer")) return null;
  // Advisory about kafkajs 1.x's partitioner, printed once per process that makes a producer. Ours
  // use 2.x's default, the Java client's murmur2 (the co-partitioning in topics/README.md relies on
  // it), and were never on the legacy one.
  if (message.includes("switched default partitioner")) return null;
  if (typeof error === "string" && RETRIED_RESPONSES.includes(error)) return "debug";
  // The producer's own line for a send it retries: "Failed to send messages: <response>" (or the
  // bare response), with no error field. The actor host's back-to-back transactions meet
  // CONCURRENT_TRANSACTIONS while the previous commit's markers are written, many times a second.
  if (namespace === "Producer") {
    const response = message.replace(/^Failed to send messages: /, "");
    if (RETRIED_RESPONSES.includes(response)) return "debug";
  }
  if (namespace === "Consumer") {
    if (message.startsWith("Crash: ") && RETRIED_RESPONSES.some((m) => message.endsWith(m))) return "warn";
    if (message.startsWith("Restarting the consumer in ")) return "warn";
  }
  return level === logLevel.ERROR ? "error" : level === logLevel.WARN ? "warn" : "info";
}

export interface GroupTiming {
  sessionTimeout: number;
  heartbeatInterval: number;
  rebalanceTimeout: number;
}

/** src/config.ts's default, for clients made without settings (tests, tools). */
const DEFAULT_GROUP_SESSION_TIMEOUT_MS = 3000;
const groupTimings = new WeakMap<object, GroupTiming>();

/**
 * The consumer-group timing of every group member made on this client: heartbeats at a tenth of the
 * session timeout (kafkajs wants well under a third), rebalances given twice as long.
 */
export function groupTiming(client: KafkaClient): GroupTiming {
  return groupTimings.get(client) ?? timingFor(DEFAULT_GROUP_SESSION_TIMEOUT_MS);
}

function timingFor(sessionTimeout: number): GroupTiming {
  return {
    sessionTimeout,
    heartbeatInterval: Math.floor(sessionTimeout / 10),
    rebalanceTimeout: 2 * sessionTimeout,
  };
}

/**
 * The longest wait between two tries of anything that talks to a broker (kafkajs's own retries, the
 * consumer supervisor, the transactor's): once a restarted broker answers, work resumes within
 * about this. kafkajs's default cap is 30 s, and with our 8 retries a send in flight when the broker
 * went away slept up to ~13 s between tries, holding the gateway's one request in flight (and every
 * command queued behind it) that long after the broker was back (issue 29, item 5).
 */
export const BROKER_RETRY_MAX_MS = 1000;

export function createKafka(settings: KafkaSettings): KafkaClient {
  const config: KafkaConfig = {
    brokers: settings.brokers,
    clientId: settings.clientId,
    connectionTimeout: 3000,
    requestTimeout: 30_000,
    // 100, 200, 400, 800 ms, then every second: ~7.5 s of tries before an operation fails.
    retry: { initialRetryTime: 100, maxRetryTime: BROKER_RETRY_MAX_MS, retries: 10 },
    logLevel: logLevel.WARN,
    logCreator: () => (entry) => {
      const { message, ...fields } = entry.log;
      const level = kafkaLogLevel(entry.level, entry.namespace, message, fields.error);
      if (level) settings.log?.(level, `kafka ${entry.namespace}: ${message}`, fields);
    },
  };
  if (settings.socketFactory) config.socketFactory = settings.socketFactory;
  const client = fromKafkajs(new Kafka(config));
  groupTimings.set(client, timingFor(settings.groupSessionTimeoutMs ?? DEFAULT_GROUP_SESSION_TIMEOUT_MS));
  return client;
}

/**
 * Keeps a consumer running across crashes. kafkajs restarts a consumer by itself only after a
 * retriable error; after any other (the group coordinator not found while the broker restarts, a
 * handler that threw once its retries ran out) it disconnects and stays down, and the role would
 * stop consuming for good. Those crashes are handed to `onCrash` (logged) and the consumer is
 * started again (`start`: connect, subscribe, run) after a backoff, doubling to BROKER_RETRY_MAX_MS
 * (a 30 s cap once left a consumer asleep ~16 s after its broker was back), until it runs
 * or the owner stops it (`stopped`). A crash kafkajs restarts from itself is logged by kafkajs as a
 * warning (kafkaLogLevel) and left to it.
 */
export function superviseConsumer(
  consumer: Consumer,
  opts: {
    onCrash?: ((error: Error) => void) | undefined;
    start: () => Promise<void>;
    stopped: () => boolean;
  },
): void {
  let crashes = 0;
  let restarting = false;
  const restartUntilRunning = async () => {
    for (let delay = RESTART_FIRST_MS; ; delay = Math.min(RESTART_MAX_MS, delay * 2)) {
      await new Promise((r) => setTimeout(r, delay));
      if (opts.stopped()) break;
      const before = crashes;
      try {
        await opts.start();
      } catch {
        continue; // The broker is still away: connect() failed.
      }
      // run() resolves even when joining the group failed: kafkajs reports that as another crash.
      if (crashes === before) break;
    }
    restarting = false;
  };
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    if (payload.restart) return;
    crashes++;
    opts.onCrash?.(payload.error);
    if (restarting || opts.stopped()) return;
    restarting = true;
    void restartUntilRunning();
  });
}

/**
 * Runs one batch's handler while heartbeating the group. kafkajs heartbeats only between batches,
 * so a handler that waits longer than the session timeout (an actor partition's restore, a large
 * projector batch on a loaded machine) would get its live member evicted, and with a session
 * timeout of a few seconds (fast takeover) that is an everyday wait. A heartbeat that fails (a
 * rebalance under way) is left to the next batch's own heartbeat to act on.
 */
export async function heartbeatingWhile<T>(
  client: KafkaClient,
  heartbeat: () => Promise<void>,
  handle: () => Promise<T>,
): Promise<T> {
  const beat = setInterval(() => heartbeat().catch(() => {}), groupTiming(client).heartbeatInterval);
  try {
    return await handle();
  } finally {
    clearInterval(beat);
  }
}

const RESTART_FIRST_MS = 250;
const RESTART_MAX_MS = BROKER_RETRY_MAX_MS;

/** kafkajs errors that mean the brokers are away or not serving yet, not that the request is wrong. */
const UNAVAILABLE = new Set([
  "KafkaJSConnectionError",
  "KafkaJSConnectionClosedError",
  "KafkaJSRequestTimeoutError",
  "KafkaJSNumberOfRetriesExceeded",
  "KafkaJSBrokerNotFound",
  "KafkaJSNoBrokerAvailableError",
  "KafkaJSMetadataNotLoaded",
  "KafkaJSTopicMetadataNotLoaded",
  "KafkaJSGroupCoordinatorNotFound",
  "KafkaJSTimeout",
  "KafkaJSLockTimeout",
]);

/**
 * Broker answers saying it no longer knows this idempotent producer's sequence: a broker killed and
 * started again on data that did not keep the producer's last batches. The batch was refused, not
 * written; kafkajs keeps the same producer id and sequence, so every later send of that producer
 * fails the same way until it is replaced (the Java client bumps its epoch instead).
 */
const PRODUCER_STATE_LOST = new Set(["OUT_OF_ORDER_SEQUENCE_NUMBER", "UNKNOWN_PRODUCER_ID"]);

export function isProducerStateLost(error: unknown): boolean {
  return (
    error instanceof Error &&
    error.name === "KafkaJSProtocolError" &&
    PRODUCER_STATE_LOST.has(String((error as { type?: unknown }).type))
  );
}

/**
 * true when `error` (or an error it wraps) says Kafka is unavailable: a connection refused or lost,
 * a timeout, retries run out, or a response kafkajs counts as retriable (a leader or coordinator
 * not elected yet after a restart). The gateway answers those 503 with Retry-After.
 */
export function isKafkaUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (UNAVAILABLE.has(e.name) || isProducerStateLost(e)) return true;
    if (e.name.startsWith("KafkaJS") && (e as { retriable?: unknown }).retriable === true) return true;
  }
  return false;
}
