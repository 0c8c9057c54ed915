import { z } from "zod";
import {
  type ChainConfig,
  type EvmChainConfig,
  parseChainList,
  parseLegacyChainList,
} from "./chains/config.ts";
import { providerEnvSchema } from "./providers/settings.ts";
import { BaseError } from "./support/errors.ts";

export type { ChainConfig, EvmChainConfig };

/**
 * Every setting of the service, parsed once from the environment. A bad value stops the process with
 * a message naming the variable; nothing else in the code reads process.env.
 */

const bool = z
  .enum(["true", "false", "1", "0", "yes", "no", ""])
  .transform((v) => v === "true" || v === "1" || v === "yes");

const csv = z.string().transform((v) =>
  v
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0),
);

const envSchema = z.object({
  HOST: z.string().default("127.0.0.1"),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  /** Public URL of the gateway, printed on start and used in links. */
  PUBLIC_URL: z.string().url().optional(),
  /**
   * When set, the process serves its metrics (/metrics) and two probes (/live, /ready) on this port
   * of HOST, whatever roles it runs (deploy/kubernetes scrapes every pod there). Unset, a process
   * running the gateway uses 9464 (src/ops/metrics-server.ts) and any other serves none: the API
   * port (PORT) never answers /metrics.
   */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /**
   * Where the logs go (src/logging.ts): `auto` writes JSON lines to stdout when it is not a terminal,
   * and on a terminal to <stack root>/logs/service.log (errors shown on stderr too), leaving the
   * terminal to the CLI's own lines; `json` always to stdout; `pretty` to stdout made readable.
   */
  LOG_FORMAT: z.enum(["auto", "json", "pretty"]).default("auto"),

  KAFKA_BROKERS: csv.optional(),
  KAFKA_CLIENT_ID: z.string().default("settlement"),
  /**
   * How long a silent consumer-group member keeps its partitions: a role killed with -9 holds its
   * work this long before another process of the role takes it over. Brokers refuse a member whose
   * timeout is below their group.min.session.timeout.ms (Kafka's default 6000): set it to 1000 there.
   */
  KAFKA_SESSION_TIMEOUT_MS: z.coerce.number().int().min(1000).max(300_000).default(3000),
  /**
   * How long a process's stop on SIGTERM may take in all (src/app/shutdown.ts): the roles stop in
   * turn within it, and a stop still running at its end is given up, logged, and the process exits 1.
   * deploy/kubernetes's terminationGracePeriodSeconds is above the drain plus this.
   */
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(25_000),
  /**
   * How long a process answers /ready with 503 before its roles stop (its gateway still serving):
   * the time a balancer takes to see it and send new requests elsewhere.
   */
  SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).max(120_000).default(3_000),
  /** Partitions of the co-partitioned session topics; fixed once the topics exist. */
  SESSION_PARTITIONS: z.coerce.number().int().min(1).max(1024).default(8),
  /**
   * Not supported (docs/DESIGN.md, "The record contract"): refused rather than ignored, so nobody
   * believes records go through a registry when they do not.
   */
  SCHEMA_REGISTRY_URL: z
    .undefined({
      error:
        "not supported: records use Avro single-object encoding with the schemas in schemas/ (see docs/DESIGN.md)",
    })
    .optional(),

  CASSANDRA_CONTACT_POINTS: csv.optional(),
  CASSANDRA_LOCAL_DC: z.string().default("datacenter1"),
  CASSANDRA_KEYSPACE: z
    .string()
    .regex(/^[a-z][a-z0-9_]{0,47}$/)
    .default("settlement"),

  /** JSON array of chains, each with its `family`; when unset the local stack file's chains are used. */
  CHAINS: z.string().optional(),
  /** The older name of CHAINS, from before other families: entries without `family` are EVM chains. */
  EVM_CHAINS: z.string().optional(),
  /** Where the local stack writes what a user needs to drive it. */
  STACK_FILE: z.string().default(".local/stack.json"),
  /**
   * Confirmation depth of the local stack's chains (a CHAINS entry carries its own): a block is
   * handed to the indexer once this many blocks are on top of it. 2 guards the reorg tests; 1 is
   * what the detection-latency benchmark measures at.
   */
  LOCAL_CONFIRMATIONS: z.coerce.number().int().min(0).max(64).default(2),

  MERCHANT_MODE: z.enum(["off", "development", "production"]).default("off"),
  /**
   * Bearer secret of the operator routes (POST /v1/operator/merchants, ...: docs/MERCHANTS.md; a
   * session's journal, dead letters, read models, lag: docs/OPERATIONS.md) and of `npm run operator`;
   * unset, they do not exist. At least 32 characters: it creates merchants, re-drives records.
   */
  OPERATOR_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  /**
   * Stealth settlement (docs/STEALTH.md): PUT /v1/stealth-meta, Flow D sessions and the stealth
   * routes. Experimental, so off by default; refused on mainnet chain ids whatever this says.
   */
  STEALTH_ENABLED: bool.default(false),
  CORS_ALLOWED_ORIGINS: csv.default([]),
  WEBHOOK_ALLOW_INSECURE: bool.default(false),
  // The webhooks role (docs/WEBHOOKS.md). The attempt count (5) is the interface's, not a setting.
  /** A failed attempt n is retried after BASE * 2^(n-1): 1, 2, 4, 8 s by default (the interface's 2^attempts s). */
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(10).default(1000),
  /** Bound on the DNS look-up and TCP (and TLS) connect of one attempt. */
  WEBHOOK_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).default(5000),
  /** Bound on one whole attempt (connect, request, response status); past it the attempt failed. */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  /**
   * A claim's lease reaches this far past WEBHOOK_TIMEOUT_MS, so a live claimer's ledger write lands
   * before anyone may take the delivery over; a dead claimer's delivery waits this long to be retried.
   */
  WEBHOOK_LEASE_MARGIN_MS: z.coerce.number().int().min(1000).default(30_000),
  /** Attempts one webhooks process makes at once (all merchants). */
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1024).default(32),
  /** How often the retry scheduler looks in the ledger for due retries another process left behind. */
  WEBHOOK_POLL_MS: z.coerce.number().int().min(50).default(1000),

  /**
   * Session lifetime: a session with no deposit after this long becomes `expired`. Below a minute
   * only makes sense for tests that wait for an expiry.
   */
  SESSION_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(10)
    .max(7 * 24 * 3600)
    .default(3600),
  /** Token bucket per client IP: one token every 1000/RATE ms, at most BURST tokens. */
  RATE_LIMIT_PER_SECOND: z.coerce.number().positive().default(5),
  RATE_LIMIT_BURST: z.coerce.number().int().positive().default(60),
  /** Largest accepted request body in bytes. */
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(64 * 1024),
  /**
   * How often gateways and projectors read which sessions table is active (docs/OPERATIONS.md, "Read
   * models"): a switch reaches every process within this. The process that makes it sees it at once.
   */
  READ_MODEL_POLL_MS: z.coerce.number().int().min(100).max(60_000).default(2000),
  /** How long the gateway waits for the owning actor's reply before answering 503. */
  REPLY_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  /**
   * How long the gateway may answer GET /sessions/:id from memory with no news of the session (new
   * states reach it from session.state within milliseconds); 0 reads Cassandra for every request.
   */
  SESSION_CACHE_TTL_MS: z.coerce.number().int().min(0).default(5000),
  /**
   * How many of session.state's last records a starting gateway reads before it serves (spread over
   * the partitions), and how many sessions' newest states it keeps (~1.5 KB each: 50,000 is ~75 MB),
   * so a read of a session the projector has not written yet finds its state. 50,000 covers minutes
   * of changes at a few hundred a second.
   */
  GATEWAY_RECENT_STATES: z.coerce.number().int().min(1).max(1_000_000).default(50_000),
  /** Interval between SSE keep-alive comments. */
  SSE_KEEPALIVE_MS: z.coerce.number().int().min(100).default(15_000),
  /** Open event streams one client (an IPv4 address, an IPv6 /64) may hold at once; past it, 429. */
  SSE_MAX_STREAMS_PER_IP: z.coerce.number().int().min(1).max(10_000).default(32),
  /** A stream ends after this long (with a `retry:` field) and the client reconnects: 15 min by default. */
  SSE_MAX_LIFETIME_MS: z.coerce.number().int().min(1000).default(900_000),
  /** The indexer is stale (health 503) when its last processed block is older than this. */
  INDEXER_STALE_SECONDS: z.coerce.number().int().min(1).default(60),
  INDEXER_POLL_MS: z.coerce.number().int().min(50).default(1000),
  /** Events between two actor snapshots of a partition. */
  SNAPSHOT_EVERY_EVENTS: z.coerce.number().int().min(1).default(50_000),
  /**
   * How long a busy actor partition (input arrived while its transaction ran) waits for more input
   * before its next transaction (src/actors/host/linger.ts); an idle partition never waits. 0: at once.
   */
  ACTOR_COMMIT_LINGER_MS: z.coerce.number().int().min(0).max(100).default(5),
  /**
   * Under load the linger follows the partition's last transaction's length, up to this
   * (src/actors/host/linger.ts): a slow transaction means a busy broker, and a longer wait shares its
   * per-transaction work among more commands. At or below ACTOR_COMMIT_LINGER_MS: a fixed wait.
   */
  ACTOR_COMMIT_LINGER_MAX_MS: z.coerce.number().int().min(0).max(200).default(50),
  /**
   * The projector writes a partition's new session states to Cassandra in unlogged batches of at
   * most this many bytes of row text: one request per ~10 sessions instead of one each, which is
   * what Cassandra's CPU per write goes on (docs/PERFORMANCE.md, issue 30 item 3). At most 48 KiB:
   * Cassandra refuses a batch over its batch_size_fail_threshold, 50 KiB by default. 0: one
   * statement per session.
   */
  PROJECTOR_BATCH_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .max(48 * 1024)
    .default(32 * 1024),
  /**
   * How long the projector's fetch may wait on the broker for more records before it answers with
   * what it has (kafkajs maxWaitTimeInMs, with minBytes so that it does wait): fuller batches, fewer
   * fetches and Cassandra batches under load. The projector is off the write path, so this delays
   * only the Cassandra row. 0: answer with the first record (minBytes 1, wait 50 ms).
   */
  PROJECTOR_FETCH_WAIT_MS: z.coerce.number().int().min(0).max(1000).default(100),

  /**
   * Platform fee in basis points, resolved at commit and signed into nothing: the delegate takes it
   * from the swap's output and refuses more than 100 (1%, the interface's cap), so a higher value
   * is refused here at start rather than by every sweep.
   */
  PLATFORM_FEE_BPS: z.coerce.number().int().min(0).max(100).default(80),
  /**
   * GET /sessions/:id/quote: suggested_min_out = floor(estimated_out * (10000 - this) / 10000).
   * Default 50 (0.5%): a pool can move between the quote and the sweep, and min_out is a hard floor.
   */
  QUOTE_SLIPPAGE_BPS: z.coerce.number().int().min(0).max(5000).default(50),
  /**
   * How long POST /sessions/:id/refund and /refund-all wait for the executor to broadcast the
   * refund (its tx_hash in the read model) before answering 504 `refund_pending`.
   */
  REFUND_WAIT_MS: z.coerce.number().int().min(100).default(30_000),
  /**
   * Relayer-paid work only moves value (docs/SETTLEMENT.md, "Refund rules"): a refund or refund-all
   * must move more than its dust floor. "gas" (default): what REFUND_GAS costs at the chain's gas
   * price, in the token's value where the chain's DEX prices it (native, USDC, tokens with a USDC
   * pool), else REFUND_DUST_MIN. A decimal integer: that many base units, for every token.
   */
  REFUND_DUST_FLOOR: z.union([z.literal("gas"), z.string().regex(/^[0-9]{1,78}$/)]).default("gas"),
  /** The gas a refund is priced at for the dust floor: a type-4 refund that delegates uses ~80k. */
  REFUND_GAS: z.coerce.number().int().min(21_000).max(10_000_000).default(100_000),
  /** The dust floor, in base units, of a token the chain's DEX does not price. */
  REFUND_DUST_MIN: z
    .string()
    .regex(/^[0-9]{1,78}$/)
    .default("10000"),
  /**
   * What the relayer may spend on one session, in USDC base units, on every chain family alike
   * (sweep, bridge relay, fast fill, refunds, bounces, bounce setup, announcement, stealth account):
   * no transaction starts whose estimated cost would pass it (409 gas_budget_spent). Default 6 USDC,
   * what the 2,000,000 gas it replaces (SESSION_GAS_BUDGET) cost on the local chains.
   */
  SESSION_RELAYER_BUDGET: z
    .string()
    .regex(/^[0-9]{1,78}$/)
    .default("6000000"),

  // The executor (docs/EXECUTOR.md). The relayer keys are each chain's `relayer` in CHAINS.
  /**
   * Circle's attestation API (Iris), e.g. https://iris-api.circle.com; when unset, the local stack's
   * attester (its `attester.url` in the stack file).
   */
  ATTESTATION_API_URL: z.string().url().optional(),
  /** How long the executor polls the attestation API for one burn before the relay attempt fails (30 min). */
  ATTESTATION_TIMEOUT_MS: z.coerce.number().int().min(1000).default(1_800_000),
  /**
   * The spacing of the asks for one burn's attestation: it is seen at most this long after it is
   * ready. Even, not doubling; ATTESTATION_MAX_PER_SECOND is what bounds the API calls.
   */
  ATTESTATION_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(500),
  /**
   * All attestation asks of one executor process together, per second (Circle's API allows 35 per
   * client and blocks one that goes over): with N executor processes keep N times this under 35.
   */
  ATTESTATION_MAX_PER_SECOND: z.coerce.number().min(0.1).max(1000).default(10),
  /** A broadcast transaction not mined after this long is replaced at the same nonce with higher fees. */
  EXECUTOR_STUCK_AFTER_MS: z.coerce.number().int().min(100).default(60_000),
  /**
   * How much a replacement raises both maxFeePerGas and maxPriorityFeePerGas, in percent. Nodes refuse a
   * replacement below +10% (geth's and anvil's price bump); the floor 12.5 leaves room for rounding.
   */
  EXECUTOR_FEE_BUMP_PERCENT: z.coerce.number().min(12.5).max(1000).default(25),
  /**
   * POST /stealth/withdraw (docs/STEALTH.md): the most a gasless stealth withdrawal may pay the relayer, in
   * USDC base units (5 USDC), so a signed fee cannot drain a stealth balance through this service.
   */
  STEALTH_WITHDRAW_MAX_FEE: z.coerce.bigint().min(0n).default(5_000_000n),
  /**
   * USDC base units one ETH is taken to be worth when the relayer checks a withdrawal's fee covers its gas
   * (3000 USDC: the local WETH/USDC pool's seeded price). An operator sets the chain's coin price here.
   */
  STEALTH_WITHDRAW_USDC_PER_ETH: z.coerce.bigint().min(1n).default(3_000_000_000n),
  /** Tries per step (the first broadcast and each replacement or re-send); then the command fails for good. */
  EXECUTOR_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(5),
  /** Backoff between failed tries of a step: doubling from BASE up to MAX (src/support/retry.ts). */
  EXECUTOR_RETRY_BASE_MS: z.coerce.number().int().min(10).default(1000),
  EXECUTOR_RETRY_MAX_MS: z.coerce.number().int().min(10).default(30_000),
  /** Commands (of different sessions) one executor process works on at once. */
  EXECUTOR_CONCURRENCY: z.coerce.number().int().min(1).max(1024).default(64),
  /**
   * The sweep's CCTP minFinalityThreshold: 2000 standard (free, waits for finality) or 1000 fast
   * (attested once mined, may cost a fee up to EXECUTOR_BRIDGE_MAX_FEE_BPS of the amount burned).
   */
  EXECUTOR_BRIDGE_FINALITY: z.coerce
    .number()
    .int()
    .refine((v) => v === 1000 || v === 2000, "must be 1000 (fast) or 2000 (standard)")
    .default(2000),
  /** The sweep's bridgeMaxFee as basis points of the amount burned; the delegate refuses more than 20. */
  EXECUTOR_BRIDGE_MAX_FEE_BPS: z.coerce.number().int().min(0).max(20).default(0),
  // The fast fill (docs/SOLANA.md, "EVM destinations: the fast fill"): the relayer's USDC pays an EVM
  // destination for money that reached the service's vault on another chain.
  /** USDC base units the relayer keeps on every EVM chain: a fill that would go below it waits (0: none). */
  FILL_INVENTORY_FLOOR: z.coerce.bigint().min(0n).default(0n),
  /** While the inventory is short, how often a fill looks again. */
  FILL_RETRY_MS: z.coerce.number().int().min(100).default(10_000),
  /** How long a fill waits for inventory in all before its session fails with the shortfall (10 min). */
  FILL_MAX_WAIT_MS: z.coerce.number().int().min(0).default(600_000),
  // The providers behind token options, balances and swap quotes (src/providers/, docs/PROVIDERS.md).
  ...providerEnvSchema.shape,
});

export type Env = z.infer<typeof envSchema>;

/** The name of every setting, as the environment spells it (the docs' settings tables are held to it). */
export const SETTING_NAMES = Object.keys(envSchema.shape) as (keyof Env)[];

export interface Config extends Omit<Env, "CHAINS" | "EVM_CHAINS"> {
  /** Every configured chain, whatever its family; undefined when the environment names none. */
  chains: ChainConfig[] | undefined;
}

/** Terminal: the process cannot start until the environment is fixed. */
export class ConfigError extends BaseError {
  override name = "ConfigError";
  readonly code = "config_invalid";
  readonly retryable = false;
}

export function parseConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join("\n")}`);
  }
  const { CHAINS, EVM_CHAINS, ...rest } = parsed.data;
  // One port for both would put the operator's metrics back on the public API's port.
  if (rest.METRICS_PORT !== undefined && rest.METRICS_PORT !== 0 && rest.METRICS_PORT === rest.PORT)
    throw new ConfigError("invalid configuration:\n  METRICS_PORT: must differ from PORT");
  // A budget in gas units would bound nothing on Solana; its silent loss would lift the operator's limit.
  if (env.SESSION_GAS_BUDGET !== undefined)
    throw new ConfigError(
      "invalid configuration:\n  SESSION_GAS_BUDGET: replaced by SESSION_RELAYER_BUDGET, in USDC base units for every chain family (2,000,000 gas at 1 gwei and 3,000 USDC per ETH is 6000000)",
    );
  if (CHAINS !== undefined && EVM_CHAINS !== undefined)
    throw new ConfigError(
      "invalid configuration:\n  CHAINS: set CHAINS or its older name EVM_CHAINS, not both",
    );
  const chains =
    CHAINS !== undefined
      ? parseChains("CHAINS", CHAINS)
      : EVM_CHAINS !== undefined
        ? parseChains("EVM_CHAINS", EVM_CHAINS)
        : undefined;
  return { ...rest, chains };
}

function parseChains(name: "CHAINS" | "EVM_CHAINS", text: string): ChainConfig[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ConfigError(`invalid configuration:\n  ${name}: must be a JSON array of chains`);
  }
  const result = name === "EVM_CHAINS" ? parseLegacyChainList(json) : parseChainList(json);
  if (!result.ok)
    throw new ConfigError(`invalid configuration:\n${result.issues.map((i) => `  ${name}.${i}`).join("\n")}`);
  return result.chains;
}
