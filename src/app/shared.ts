import type { ChainAdapter } from "../chains/adapter.ts";
import type { Config } from "../config.ts";
import type { KafkaClient } from "../kafka/client.ts";
import type { Codecs } from "../kafka/codecs.ts";
import type { Logger } from "../logging.ts";
import type { gaugeFrom, registry } from "../ops/metrics.ts";
import type { CassandraClient } from "../store/cassandra.ts";
import type { Infra } from "./infra.ts";

/** The one object every role starts over, built once per process by boot(). */
export interface Shared {
  /** The configuration with the chains resolved from the environment or the local stack. */
  config: Config;
  infra: Infra;
  log: Logger;
  metrics: { registry: typeof registry; gaugeFrom: typeof gaugeFrom };
  /** The record codecs: Avro single-object encoding over schemas/. */
  codecs: Codecs;
  kafka: KafkaClient;
  cassandra: CassandraClient;
  /** One adapter per configured chain: the only way a role reaches a chain. */
  chains: ChainAdapter[];
  /** Aborts on shutdown. */
  signal: AbortSignal;
}

export type RoleName = "actors" | "projector" | "indexer" | "executor" | "webhooks" | "gateway";

/** A role: its name and how it starts. A process runs one role, or all of them (`start`). */
export interface RoleModule {
  name: RoleName;
  /** Resolves once the role is ready (caught up, listening); `log` is the shared logger with the role bound. */
  start(shared: Shared, log: Logger): Promise<RunningRole>;
}

export interface RunningRole {
  role: RoleName;
  /** One line for the operator: what runs and where. */
  summary: string;
  /**
   * The stop is coming (SIGTERM; the process is not ready any more): the role goes on serving
   * through the drain but readies its going. The gateway answers each request with
   * `Connection: close`, so no idle keep-alive connection is left for the close to cut.
   */
  drain?(): void;
  /**
   * Why the role cannot do its work right now (still restoring, the indexer behind), or null: /ready
   * answers 503 with it. A role's start waits for this only so long (CATCH_UP_TIMEOUT_MS).
   */
  notReady?(): string | null;
  stop(): Promise<void>;
}

/** How long a role's start waits to catch up with the journal before it reports itself up anyway. */
export const CATCH_UP_TIMEOUT_MS = 120_000;
