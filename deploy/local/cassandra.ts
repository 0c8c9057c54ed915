// Runs a single-node Cassandra from Maven Central jars, detached from this process.
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import cassandra from "cassandra-driver";
import type { Log } from "./processes.ts";
import {
  ensureLib,
  isPortOpen,
  javaBin,
  logTail,
  mainClass,
  paths,
  retryUntil,
  runningPid,
  spawnDetached,
  withLock,
} from "./processes.ts";

export interface EnsureCassandraOptions {
  root: string;
  /** The CQL (native transport) port; 19042 by default. */
  port?: number;
  /** The inter-node port, bound even by a single node; a second node on the machine needs its own. */
  storagePort?: number;
  log?: (line: string) => void;
}

export interface CassandraEndpoint {
  contactPoints: string[];
  localDataCenter: string;
  started: boolean;
}

// SimpleSnitch always reports this data center.
const LOCAL_DC = "datacenter1";
const DEFAULT_STORAGE_PORT = 17000;
// Cassandra needs 30-60 s on two cores, more on the very first start (system keyspaces).
const READY_TIMEOUT_MS = 180_000;

// Java 17 module flags Cassandra 5.0 needs (from its conf/jvm17-server.options):
// it reaches into JDK internals for off-heap memory, file channels, JMX and Chronicle.
const JPMS_FLAGS = [
  ...[
    "java.base/jdk.internal.misc",
    "java.management.rmi/com.sun.jmx.remote.internal.rmi",
    "java.rmi/sun.rmi.registry",
    "java.rmi/sun.rmi.server",
    "java.sql/java.sql",
    "java.base/java.lang.ref",
    "jdk.unsupported/sun.misc",
    "jdk.compiler/com.sun.tools.javac.file",
    "jdk.attach/sun.tools.attach",
  ].map((pkg) => `--add-exports=${pkg}=ALL-UNNAMED`),
  ...[
    "java.base/java.lang.module",
    "java.base/jdk.internal.loader",
    "java.base/jdk.internal.ref",
    "java.base/jdk.internal.reflect",
    "java.base/jdk.internal.math",
    "java.base/jdk.internal.module",
    "java.base/jdk.internal.util.jar",
    "jdk.management/com.sun.management.internal",
    "java.base/sun.nio.ch",
    "java.base/java.io",
    "java.base/java.lang.reflect",
    "jdk.compiler/com.sun.tools.javac",
    "java.base/java.lang",
    "java.base/java.util",
  ].map((pkg) => `--add-opens=${pkg}=ALL-UNNAMED`),
];

// Heap sized for tests (memtables below are capped to fit); G1 as Cassandra recommends on 17.
// -Xss1m (the JVM default) instead of the stock scripts' smaller stacks: stacks are only
// reserved, not committed, so the headroom costs nothing on a test machine.
const JVM_OPTS = [
  "-Xms1g",
  // 2 GiB: with 1 GiB a compaction of multi-megabyte snapshot chunks ran the heap out (seen here).
  "-Xmx2g",
  "-Xss1m",
  "-XX:+UseG1GC",
  "-XX:+ParallelRefProcEnabled",
  "-XX:MaxTenuringThreshold=1",
  "-XX:+ExitOnOutOfMemoryError",
  "-Djava.net.preferIPv4Stack=true",
  "-Djdk.attach.allowAttachSelf=true",
  "-Dio.netty.tryReflectionSetAccessible=true",
  // One node and no peers: skip the gossip settling wait that costs several seconds per start.
  "-Dcassandra.skip_wait_for_gossip_to_settle=0",
];

function cassandraYaml(home: string, port: number, storagePort: number): string {
  const dir = (name: string) => JSON.stringify(join(home, name));
  return `# Written by deploy/local/cassandra.ts on every start; edit that file instead.
cluster_name: local-stack
num_tokens: 1
partitioner: org.apache.cassandra.dht.Murmur3Partitioner
endpoint_snitch: SimpleSnitch
seed_provider:
  - class_name: org.apache.cassandra.locator.SimpleSeedProvider
    parameters:
      - seeds: "127.0.0.1:${storagePort}"
listen_address: 127.0.0.1
rpc_address: 127.0.0.1
storage_port: ${storagePort}
native_transport_port: ${port}
start_native_transport: true

authenticator: AllowAllAuthenticator
authorizer: AllowAllAuthorizer
role_manager: CassandraRoleManager
network_authorizer: AllowAllNetworkAuthorizer

data_file_directories:
  - ${dir("data")}
commitlog_directory: ${dir("commitlog")}
saved_caches_directory: ${dir("saved_caches")}
hints_directory: ${dir("hints")}
cdc_raw_directory: ${dir("cdc_raw")}

commitlog_sync: periodic
commitlog_sync_period: 10000ms
commitlog_segment_size: 16MiB

# Small memtables and caches so the 1 GiB heap is plenty.
memtable_allocation_type: heap_buffers
memtable_heap_space: 64MiB
memtable_offheap_space: 64MiB
memtable_flush_writers: 1
concurrent_compactors: 1
key_cache_size: 16MiB
file_cache_size: 64MiB
networking_cache_size: 32MiB

# The projector writes its rows in unlogged batches of up to 32 KiB (PROJECTOR_BATCH_BYTES); at the
# default 5 KiB Cassandra logs a warning for every one of them. The refusal stays at its default 50 KiB.
batch_size_warn_threshold: 48KiB

# Tests drop and truncate tables often; snapshots would only fill the disk.
auto_snapshot: false
snapshot_before_compaction: false

disk_failure_policy: stop
commit_failure_policy: stop
`;
}

// Everything to stdout; the spawn redirects stdout into .local/logs/cassandra.log.
const LOGBACK = `<configuration scan="false">
  <appender name="OUT" class="ch.qos.logback.core.ConsoleAppender">
    <encoder><pattern>%-5level [%thread] %date{ISO8601} %F:%L - %msg%n</pattern></encoder>
  </appender>
  <root level="INFO"><appender-ref ref="OUT"/></root>
</configuration>
`;

async function waitReady(contactPoints: string[], root: string, pid: number | undefined, log: Log) {
  const started = Date.now();
  const died = () =>
    pid !== undefined && runningPid(root, "cassandra") === undefined
      ? `cassandra process ${pid} exited; log tail:\n${logTail(root, "cassandra")}`
      : undefined;
  const version = await retryUntil(
    "cassandra did not answer",
    READY_TIMEOUT_MS,
    async () => {
      const client = new cassandra.Client({ contactPoints, localDataCenter: LOCAL_DC });
      try {
        const rs = await client.execute("SELECT release_version FROM system.local");
        return String(rs.first()?.get("release_version"));
      } finally {
        await client.shutdown();
      }
    },
    died,
    2000,
  );
  log(`cassandra: ${version} answers CQL (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

export async function ensureCassandra(opts: EnsureCassandraOptions): Promise<CassandraEndpoint> {
  const log: Log = opts.log ?? (() => {});
  const fromEnv = process.env.CASSANDRA_CONTACT_POINTS?.trim();
  if (fromEnv) {
    const contactPoints = fromEnv
      .split(",")
      .map((c) => c.trim())
      .filter(Boolean);
    const localDataCenter = process.env.CASSANDRA_LOCAL_DC?.trim() || LOCAL_DC;
    log(`cassandra: using CASSANDRA_CONTACT_POINTS=${contactPoints.join(",")} (${localDataCenter})`);
    return { contactPoints, localDataCenter, started: false };
  }

  const root = resolve(opts.root);
  const port = opts.port ?? 19042;
  const storagePort = opts.storagePort ?? DEFAULT_STORAGE_PORT;
  return withLock(root, "cassandra", () => startOrReuse(root, port, storagePort, log));
}

async function startOrReuse(
  root: string,
  port: number,
  storagePort: number,
  log: Log,
): Promise<CassandraEndpoint> {
  const contactPoints = [`127.0.0.1:${port}`];

  // Reuse a node that answers, or one of ours that is still starting.
  const existing = runningPid(root, "cassandra");
  if (existing !== undefined || (await isPortOpen(port))) {
    log(
      `cassandra: reusing node on ${contactPoints[0]}${existing !== undefined ? ` (pid ${existing})` : ""}`,
    );
    await waitReady(contactPoints, root, existing, log);
    return { contactPoints, localDataCenter: LOCAL_DC, started: false };
  }

  const lib = await ensureLib(root, "cassandra", log);
  const home = paths(root).home("cassandra");
  const conf = join(home, "conf");
  for (const sub of ["conf", "data", "commitlog", "saved_caches", "hints", "cdc_raw"]) {
    mkdirSync(join(home, sub), { recursive: true });
  }
  const yamlFile = join(conf, "cassandra.yaml");
  const logbackFile = join(conf, "logback.xml");
  writeFileSync(yamlFile, cassandraYaml(home, port, storagePort));
  writeFileSync(logbackFile, LOGBACK);

  const pid = spawnDetached(
    root,
    "cassandra",
    javaBin(),
    [
      ...JVM_OPTS,
      ...JPMS_FLAGS,
      `-Dcassandra.config=${pathToFileURL(yamlFile).href}`,
      `-Dlogback.configurationFile=${logbackFile}`,
      "-Dcassandra-foreground=yes",
      `-Dcassandra.storagedir=${home}`,
      `-Dcassandra.logdir=${paths(root).logs}`,
      "-cp",
      join(lib, "*"),
      mainClass.cassandra,
    ],
    home,
  );
  log(`cassandra: started pid ${pid}, log ${paths(root).logFile("cassandra")}`);
  await waitReady(contactPoints, root, pid, log);
  return { contactPoints, localDataCenter: LOCAL_DC, started: true };
}
