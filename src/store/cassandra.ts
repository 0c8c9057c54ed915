import { readdir, readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import cassandra from "cassandra-driver";

/** The one place that creates Cassandra sessions; everything else receives a connected client. */
export type CassandraClient = cassandra.Client;

export interface CassandraSettings {
  contactPoints: string[];
  localDataCenter: string;
  keyspace: string;
}

const MIGRATIONS_DIR = fileURLToPath(new URL("./migrations/", import.meta.url));

/** Connects without a keyspace, creates and migrates it, then returns a client bound to it. */
export async function connectCassandra(
  settings: CassandraSettings,
  opts: { migrate: boolean },
): Promise<CassandraClient> {
  if (opts.migrate) await migrate(settings);
  const client = new cassandra.Client({
    contactPoints: settings.contactPoints,
    localDataCenter: settings.localDataCenter,
    keyspace: settings.keyspace,
    // Read models are written and read at LOCAL_QUORUM; on the one-node local stack that is the node.
    queryOptions: { consistency: cassandra.types.consistencies.localQuorum, prepare: true },
    // bigint columns map to JS bigint both ways (block numbers, offsets).
    encoding: { useBigIntAsLong: true, useBigIntAsVarint: true },
    policies: { reconnection: RECONNECT },
  });
  await client.connect();
  return client;
}

/**
 * A node that went down is tried again at once, then at most a second apart. The driver's default
 * doubles its wait up to 10 minutes, so after a 15 s outage the next try could come ~16 s after the
 * node answered again, every request meanwhile refused (issue 29, item 5).
 */
const RECONNECT = new cassandra.policies.reconnection.ExponentialReconnectionPolicy(100, 1000, true);

/** Server answers that mean the node cannot serve now (not that the statement is wrong). */
const UNAVAILABLE_CODES: ReadonlySet<number> = new Set([
  cassandra.types.responseErrorCodes.unavailableException,
  cassandra.types.responseErrorCodes.overloaded,
  cassandra.types.responseErrorCodes.isBootstrapping,
  cassandra.types.responseErrorCodes.readTimeout,
  cassandra.types.responseErrorCodes.writeTimeout,
]);

/**
 * true when `error` says Cassandra is unavailable: no node could be reached, a connection broke under
 * a request, a request timed out or found every connection busy, or the node answered that it cannot
 * serve now. The gateway answers
 * those 503 with Retry-After.
 */
export function isCassandraUnavailable(error: unknown): boolean {
  const { errors } = cassandra;
  if (
    error instanceof errors.NoHostAvailableError ||
    error instanceof errors.OperationTimedOutError ||
    error instanceof errors.BusyConnectionError
  )
    return true;
  // A connection reset or closed under a request in flight (the node went away mid-request).
  if (error instanceof errors.DriverError && (error as { isSocketError?: unknown }).isSocketError === true)
    return true;
  // The pool of a host with no open connection throws plain Errors (lib/host-connection-pool.js,
  // borrowConnection and its close path), and preparing a statement passes them on unwrapped where
  // a query would have wrapped them in NoHostAvailableError: seen live in cassandra-outage.e2e.
  if (error instanceof Error && error.constructor === Error && POOL_GONE.has(error.message)) return true;
  return error instanceof errors.ResponseError && UNAVAILABLE_CODES.has(error.code);
}

const POOL_GONE = new Set(["No connection available", "Connection closed"]);

/** The cheapest query that proves the node answers (/health). */
export async function ping(client: CassandraClient): Promise<void> {
  await client.execute("SELECT release_version FROM system.local");
}

/**
 * Applies src/store/migrations/*.cql in file-name order. Every statement is idempotent
 * (IF NOT EXISTS), so re-running is safe; applied files are recorded for operators to see.
 */
export async function migrate(settings: CassandraSettings): Promise<string[]> {
  const admin = new cassandra.Client({
    contactPoints: settings.contactPoints,
    localDataCenter: settings.localDataCenter,
  });
  await admin.connect();
  try {
    const ks = settings.keyspace;
    // SimpleStrategy/RF 1 suits the one-node local stack; production sets its own keyspace up front.
    await admin.execute(
      `CREATE KEYSPACE IF NOT EXISTS ${ks} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
    );
    await admin.execute(
      `CREATE TABLE IF NOT EXISTS ${ks}.schema_migrations (name text PRIMARY KEY, applied_at timestamp)`,
    );
  } finally {
    await admin.shutdown();
  }
  // Statements in the files name tables without a keyspace: run them on a client bound to it.
  const bound = new cassandra.Client({
    contactPoints: settings.contactPoints,
    localDataCenter: settings.localDataCenter,
    keyspace: settings.keyspace,
  });
  await bound.connect();
  try {
    const files = (await readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith(".cql")).sort();
    for (const file of files) {
      const text = await readFile(`${MIGRATIONS_DIR}${file}`, "utf8");
      for (const statement of splitStatements(text)) await bound.execute(statement);
      await bound.execute("INSERT INTO schema_migrations (name, applied_at) VALUES (?, toTimestamp(now()))", [
        file,
      ]);
    }
    return files;
  } finally {
    await bound.shutdown();
  }
}

function splitStatements(cql: string): string[] {
  return cql
    .split("\n")
    .filter((line) => !line.trim().startsWith("--"))
    .join("\n")
    .split(";")
    .map((s) => s.replace(/--[^\n]*/g, "").trim())
    .filter((s) => s.length > 0);
}
