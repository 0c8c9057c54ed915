import path from "node:path";
import { parseArgs } from "node:util";
import cliProgress from "cli-progress";
import { topicCatalogue } from "../../topics/catalogue.ts";
import { type Config, ConfigError, parseConfig } from "../config.ts";
import { createKafka } from "../kafka/client.ts";
import { ensureTopics } from "../kafka/topics.ts";
import { createLogger, type Logger, logSink } from "../logging.ts";
import { registry } from "../ops/metrics.ts";
import { type MetricsServer, metricsPortOf, startMetricsServer } from "../ops/metrics-server.ts";
import { firstNotReady } from "../ops/readiness.ts";
import { rebuildReadModel } from "../projections/replay.ts";
import { migrate } from "../store/cassandra.ts";
import { boot } from "./boot.ts";
import { DEADLETTER_USAGE, deadLetterCommand } from "./deadletter-cli.ts";
import { type EnsureStack, resolveInfra, stackRoot } from "./infra.ts";
import { merchantCommand } from "./merchant-cli.ts";
import { ROLES, type Role, type RunningRole, type Shared, startRoles } from "./roles.ts";
import { drainFor, type StopStep, stopInTurn } from "./shutdown.ts";

/**
 * The service's commands. The entry points pass in what src/ does not own: `npm start` and
 * `npm run stack` go through deploy/local/cli.ts, which hands over the local stack's start
 * (src/ never imports deploy/); src/cli.ts runs the same commands on servers that already run.
 */
export const USAGE = `usage: settlement <command>

  start                 the whole service in one process (npm start also starts the local stack)
  ${ROLES.join(" | ")}
                        one role (servers from the environment or the local stack file)
  topics                create the topics of topics/catalogue.ts
  migrate               create the topics and apply the Cassandra migrations, then exit
  replay [--table T] [--max-open N] [--from-zero]
                        rebuild the sessions read model (or table T) from session.events, holding at
                        most N session states at once (default 100000); a replay of T that was stopped
                        half way goes on from its last committed position unless --from-zero
  merchant create --name N --email E      create a merchant; prints its pk_ and sk_ once
  merchant roll --id M [--type secret|publishable]
                                          roll a merchant's key (the old one is revoked); prints the new one
  merchant revoke --id M --key K          revoke one of a merchant's keys
                        (merchant mode: MERCHANT_MODE on here and in the running service)
  ${DEADLETTER_USAGE}
`;

export const say = (line: string) => process.stdout.write(`${line}\n`);

export async function runCli(argv: string[], opts: { ensureStack?: EnsureStack } = {}): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === "help" || command === "--help") {
    say(USAGE);
    return command ? 0 : 2;
  }
  const config = parseConfig();
  const log = createLogger(config.LOG_LEVEL, "service", logOptions(config));

  if (command === "topics" || command === "migrate") {
    const infra = await resolveInfra(config, {});
    const kafka = createKafka({ brokers: infra.brokers, clientId: config.KAFKA_CLIENT_ID });
    const created = await ensureTopics(
      kafka,
      topicCatalogue({ sessionPartitions: config.SESSION_PARTITIONS }),
    );
    say(created.length ? `created: ${created.join(", ")}` : "all topics exist");
    // Every role also migrates at start; one process doing it first keeps several new processes
    // from changing Cassandra's schema at once (deploy/kubernetes, deploy/compose).
    if (command === "migrate") say(`migrations applied: ${(await migrate(infra.cassandra)).join(", ")}`);
    return 0;
  }
  if (command === "replay") return replayCommand(rest, config, log);
  if (command === "merchant") return merchantCommand(rest, config, log);
  if (command === "deadletter") return deadLetterCommand(rest, config);
  if (command === "start") return serve(config, ROLES, log, opts.ensureStack);
  if ((ROLES as readonly string[]).includes(command)) return serve(config, [command as Role], log, undefined);
  process.stderr.write(`unknown command: ${command}\n\n${USAGE}`);
  return 2;
}

/** On a terminal the logs go to the stack root's logs folder, beside the servers' (LOG_FORMAT). */
const logOptions = (config: Config) => ({
  format: config.LOG_FORMAT,
  file: path.join(stackRoot(config), "logs", "service.log"),
});

/** Says where the logs go: the file on a terminal, else stdout (nothing to say). */
function sayLogs(config: Config): void {
  const options = logOptions(config);
  if (logSink(options) === "file")
    say(`logs       ${options.file} (JSON lines, errors shown here too; LOG_FORMAT=json: to stdout)`);
}

/** Runs a command to its exit code; a bad configuration is one line, anything else its stack. */
export function exitWith(run: Promise<number>): void {
  run.then(
    (code) => process.exit(code),
    (err: unknown) => {
      if (err instanceof ConfigError) process.stderr.write(`${err.message}\n`);
      else process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}

async function serve(
  config: Config,
  roles: readonly Role[],
  log: Logger,
  ensureStack: EnsureStack | undefined,
): Promise<number> {
  exitOnUnhandled(log);
  // Up before boot: a process connecting to its servers or restoring is alive, only not ready yet.
  const metricsPort = metricsPortOf(config, roles.includes("gateway"));
  const metricsServer =
    metricsPort === undefined
      ? undefined
      : await startMetricsServer({ host: config.HOST, port: metricsPort, registry });
  sayLogs(config);
  if (ensureStack) say("starting the local stack (Kafka, Cassandra, anvil) if it is not running...");
  const { abort, ...shared } = await boot(config, log, { ensureStack });
  if (ensureStack) say(`stack ready: ${config.STACK_FILE}`);
  const running = await startRoles(shared, roles, (r) => say(`${r.role.padEnd(10)} ${r.summary}`));
  metricsServer?.ready(() => firstNotReady(running.map((r) => () => r.notReady?.() ?? null)));
  if (metricsServer)
    say(`metrics    http://${config.HOST}:${metricsServer.port}/metrics (probes /live, /ready)`);
  if (roles.includes("gateway"))
    say(`\ngateway URL: ${config.PUBLIC_URL ?? `http://${config.HOST}:${config.PORT}`}`);
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  return stopGracefully({ signal, config, running, log, shared, abort, metricsServer });
}

/**
 * The stop on SIGTERM (docs/RELIABILITY.md, "Graceful stop"): /ready answers 503 first and the
 * process goes on serving for the drain (a balancer sends new requests elsewhere), then the roles
 * stop in the reverse of their start order (the gateway answers what it holds; consumers finish or
 * drop their records in flight and leave their groups, so their partitions move at once), all
 * within SHUTDOWN_TIMEOUT_MS. Each stop is logged with how long it took; past the bound the process
 * says what was still stopping and exits 1.
 */
async function stopGracefully(s: {
  signal: NodeJS.Signals;
  config: Config;
  running: readonly RunningRole[];
  log: Logger;
  shared: Pick<Shared, "cassandra">;
  abort: AbortController;
  metricsServer: MetricsServer | undefined;
}): Promise<number> {
  const { config, log } = s;
  const drainMs = drainFor(
    s.signal,
    config.SHUTDOWN_DRAIN_MS,
    s.running.some((r) => r.role === "gateway"),
  );
  s.metricsServer?.stopping();
  for (const r of s.running) r.drain?.();
  say(
    `stopping (${s.signal}): not ready; draining for ${drainMs} ms, then stopping within ${config.SHUTDOWN_TIMEOUT_MS} ms`,
  );
  log.info(
    { signal: s.signal, drainMs, boundMs: config.SHUTDOWN_TIMEOUT_MS },
    "stopping: not ready, draining",
  );
  await new Promise((r) => setTimeout(r, drainMs));
  // Loops that watch the shared signal (the indexers) end with their role.
  s.abort.abort();
  const steps: StopStep[] = [
    ...[...s.running].reverse().map((r) => ({ name: r.role, stop: r.stop })),
    { name: "cassandra", stop: () => s.shared.cassandra.shutdown() },
    ...(s.metricsServer ? [{ name: "metrics", stop: (s.metricsServer as MetricsServer).close }] : []),
  ];
  const outcome = await stopInTurn(steps, {
    boundMs: config.SHUTDOWN_TIMEOUT_MS,
    onStep: (step) =>
      step.error === undefined
        ? log.info({ step: step.name, tookMs: step.tookMs }, "stopped")
        : log.warn({ step: step.name, tookMs: step.tookMs, err: step.error }, "stop failed"),
  });
  if (outcome.kind === "timed-out") {
    const line = `stop not done within SHUTDOWN_TIMEOUT_MS (${config.SHUTDOWN_TIMEOUT_MS} ms): ${outcome.stillStopping} was still stopping; exiting 1`;
    process.stderr.write(`${line}\n`);
    log.error({ tookMs: outcome.tookMs, stillStopping: outcome.stillStopping, steps: outcome.steps }, line);
    return 1;
  }
  say(`stopped in ${outcome.tookMs} ms after the drain`);
  log.info({ tookMs: outcome.tookMs, drainMs, steps: outcome.steps }, "stopped");
  return 0;
}

/**
 * The last resort, not the fix: a rejection nothing awaits, or an exception nothing catches, is a
 * bug (every role handles its own failures and carries on). It is written to stderr on one line
 * that starts with "FATAL", logged, and the process exits 70 (EX_SOFTWARE) rather than run on in
 * a state nobody designed: a supervisor restarts it, and a test fails on it.
 */
function exitOnUnhandled(log: Logger): void {
  const die = (kind: string) => (reason: unknown) => {
    const text = reason instanceof Error ? (reason.stack ?? reason.message) : String(reason);
    process.stderr.write(`FATAL ${kind}: ${text}\n`);
    log.fatal({ err: reason }, kind);
    process.exit(70);
  };
  process.on("unhandledRejection", die("unhandledRejection"));
  process.on("uncaughtException", die("uncaughtException"));
}

async function replayCommand(args: string[], config: Config, log: Logger): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      table: { type: "string", default: "sessions" },
      "max-open": { type: "string" },
      "from-zero": { type: "boolean", default: false },
    },
  });
  const maxOpen = values["max-open"] === undefined ? undefined : Number(values["max-open"]);
  if (maxOpen !== undefined && !(Number.isInteger(maxOpen) && maxOpen > 0)) {
    say(`--max-open takes a positive whole number, not ${values["max-open"]}`);
    return 64;
  }
  const { infra, cassandra } = await boot(config, log);
  const bar = new cliProgress.SingleBar(
    {
      format:
        "replay |{bar}| {percentage}% {value}/{total} records | {sessions} sessions, {held} held | {rate} records/s | eta {eta_formatted}",
      hideCursor: true,
      etaBuffer: 50,
    },
    cliProgress.Presets.shades_classic,
  );
  const started = Date.now();
  let barStarted = false;
  const settings = {
    kafka: { brokers: infra.brokers, clientId: `${config.KAFKA_CLIENT_ID}.replay` },
    cassandra: infra.cassandra,
    table: values.table,
  };
  // Ctrl-C stops the replay where it is: the positions committed so far let the next run go on.
  const stop = new AbortController();
  const onSignal = () => stop.abort(new Error("replay interrupted"));
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    const result = await rebuildReadModel(settings, {
      resume: !values["from-zero"],
      signal: stop.signal,
      ...(maxOpen !== undefined ? { maxOpenSessions: maxOpen } : {}),
      onProgress: ({ read, total, sessions, held }) => {
        const payload = {
          rate: Math.round(read / Math.max(0.001, (Date.now() - started) / 1000)).toLocaleString("en"),
          sessions: sessions.toLocaleString("en"),
          held: held.toLocaleString("en"),
        };
        if (!barStarted) {
          bar.start(total, 0, payload);
          barStarted = true;
        }
        bar.update(read, payload);
      },
    });
    if (barStarted) bar.stop();
    const from = result.resumedFrom
      ? `, going on from the positions a stopped replay committed (${[...result.resumedFrom.values()].reduce((n, o) => n + o, 0n)} records in)`
      : "";
    say(
      `replayed ${result.events} events into ${result.sessions} sessions (table ${values.table}) in ${Date.now() - started} ms${from}; ` +
        `at most ${result.counts.peakHeld} states held, ${result.counts.reopened} sessions read back; ` +
        `${result.foldMs} ms writing after the read`,
    );
    return 0;
  } catch (err) {
    if (barStarted) bar.stop();
    if (!stop.signal.aborted) throw err;
    say(`replay of ${values.table} stopped; run it again to go on from its last committed position`);
    return 130;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await cassandra.shutdown();
  }
}
