#!/usr/bin/env node
import { parseArgs } from "node:util";
import cliProgress from "cli-progress";
import { ensureStack, readStack, stackFile, stopStack } from "../deploy/local/stack.ts";
import { topicCatalogue } from "../topics/catalogue.ts";
import { boot } from "./app/boot.ts";
import { resolveInfra, stackRoot } from "./app/infra.ts";
import { ROLES, type Role, type RunningRole, startRole } from "./app/roles.ts";
import { type Config, ConfigError, parseConfig } from "./config.ts";
import { createKafka } from "./kafka/client.ts";
import { ensureTopics } from "./kafka/topics.ts";
import { createLogger, type Logger } from "./logging.ts";
import { rebuildReadModel } from "./projections/replay.ts";

const USAGE = `usage: settlement <command>

  start                 the whole service in one process (starts the local stack if needed)
  gateway | actors | projector | indexer | executor | webhooks
                        one role (servers from the environment or the local stack file)
  topics                create the topics of topics/catalogue.ts
  replay [--table T]    rebuild the sessions read model (or table T) from session.events
  stack start|stop|status
                        the local stack: Kafka, Cassandra, two anvil chains
`;

const say = (line: string) => process.stdout.write(`${line}\n`);

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === "help" || command === "--help") {
    say(USAGE);
    return command ? 0 : 2;
  }
  const config = parseConfig();
  const log = createLogger(config.LOG_LEVEL);

  if (command === "stack") return stackCommand(rest[0] ?? "start", config);
  if (command === "topics") {
    const infra = await resolveInfra(config, { ensure: false });
    const kafka = createKafka({ brokers: infra.brokers, clientId: config.KAFKA_CLIENT_ID });
    const created = await ensureTopics(
      kafka,
      topicCatalogue({ sessionPartitions: config.SESSION_PARTITIONS }),
    );
    say(created.length ? `created: ${created.join(", ")}` : "all topics exist");
    return 0;
  }
  if (command === "replay") return replayCommand(rest, config, log);
  if (command === "start") return serve(config, [...ROLES], log, true);
  if ((ROLES as readonly string[]).includes(command)) return serve(config, [command as Role], log, false);
  process.stderr.write(`unknown command: ${command}\n\n${USAGE}`);
  return 2;
}

async function serve(config: Config, roles: Role[], log: Logger, ensure: boolean): Promise<number> {
  if (ensure) say("starting the local stack (Kafka, Cassandra, anvil) if it is not running...");
  const { abort, ...ctx } = await boot(config, log, { ensure });
  if (ensure) say(`stack ready: ${config.STACK_FILE}`);
  const running: RunningRole[] = [];
  // Consumers of the journal first, the gateway last: it answers only once everything behind it runs.
  const order: Role[] = ["actors", "projector", "indexer", "executor", "webhooks", "gateway"];
  for (const role of order.filter((r) => roles.includes(r))) {
    const r = await startRole(role, ctx);
    running.push(r);
    say(`${role.padEnd(10)} ${r.summary}`);
  }
  const gateway = running.find((r) => r.role === "gateway");
  if (gateway) say(`\ngateway URL: ${config.PUBLIC_URL ?? `http://${config.HOST}:${config.PORT}`}`);
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  say("stopping...");
  abort.abort();
  for (const r of running.reverse())
    await r.stop().catch((err) => log.warn({ err, role: r.role }, "stop failed"));
  await ctx.cassandra.shutdown();
  return 0;
}

async function replayCommand(args: string[], config: Config, log: Logger): Promise<number> {
  const { values } = parseArgs({ args, options: { table: { type: "string", default: "sessions" } } });
  const { infra, cassandra } = await boot(config, log, { ensure: false });
  const bar = new cliProgress.SingleBar(
    { format: "replay |{bar}| {percentage}% {value}/{total} events {rate}/s eta {eta}s", hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  const started = Date.now();
  let barStarted = false;
  const settings = {
    kafka: { brokers: infra.brokers, clientId: `${config.KAFKA_CLIENT_ID}.replay` },
    cassandra: infra.cassandra,
    table: values.table,
  };
  const result = await rebuildReadModel(settings, {
    onProgress: ({ read, total }) => {
      if (!barStarted) {
        bar.start(total, 0, { rate: 0 });
        barStarted = true;
      }
      bar.update(read, { rate: Math.round(read / Math.max(0.001, (Date.now() - started) / 1000)) });
    },
  });
  if (barStarted) bar.stop();
  // The bar counts records read; after the read each thread folds its sessions and writes them.
  say(
    `replayed ${result.events} events into ${result.sessions} sessions (table ${values.table}) in ${Date.now() - started} ms, ` +
      `of which ${result.foldMs} ms folding and writing after the read`,
  );
  await cassandra.shutdown();
  return 0;
}

async function stackCommand(action: string, config: Config): Promise<number> {
  const root = stackRoot(config);
  if (action === "start") {
    const info = await ensureStack({ root, log: say });
    say(JSON.stringify(info, null, 2));
    say(`written to ${stackFile(root)}`);
    return 0;
  }
  if (action === "stop") {
    await stopStack({ root, log: say });
    say("stack stopped");
    return 0;
  }
  if (action === "status") {
    const info = await readStack(root);
    say(info ? JSON.stringify(info, null, 2) : "no stack file");
    return info ? 0 : 1;
  }
  process.stderr.write(`unknown stack action: ${action}\n`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof ConfigError) process.stderr.write(`${err.message}\n`);
    else process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
