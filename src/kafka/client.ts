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
   * others (kafkajs's sessionTimeout; default 30 s). A member killed with -9 holds its partitions
   * this long, so it is also how long a replacement waits.
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

const DEFAULT_GROUP_SESSION_TIMEOUT_MS = 30_000;
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

export function createKafka(settings: KafkaSettings): KafkaClient {
  const config: KafkaConfig = {
    brokers: settings.brokers,
    clientId: settings.clientId,
    connectionTimeout: 3000,
    requestTimeout: 30_000,
    retry: { initialRetryTime: 100, retries: 8 },
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
 * started again (`start`: connect, subscribe, run) after a backoff, doubling to 30 s, until it runs
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

const RESTART_FIRST_MS = 1000;
const RESTART_MAX_MS = 30_000;

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
 * true when `error` (or an error it wraps) says Kafka is unavailable: a connection refused or lost,
 * a timeout, retries run out, or a response kafkajs counts as retriable (a leader or coordinator
 * not elected yet after a restart). The gateway answers those 503 with Retry-After.
 */
export function isKafkaUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (UNAVAILABLE.has(e.name)) return true;
    if (e.name.startsWith("KafkaJS") && (e as { retriable?: unknown }).retriable === true) return true;
  }
  return false;
}
