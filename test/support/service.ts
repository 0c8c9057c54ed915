import { ensureStack, type StackInfo } from "../../deploy/local/stack.ts";
import { boot } from "../../src/app/boot.ts";
import type { Infra } from "../../src/app/infra.ts";
import { ROLES, type Role, type RunningRole, startRole } from "../../src/app/roles.ts";
import { type Config, parseConfig } from "../../src/config.ts";
import type { KafkaClient } from "../../src/kafka/client.ts";
import { createLogger } from "../../src/logging.ts";
import { registry } from "../../src/ops/metrics.ts";
import { startMetricsServer } from "../../src/ops/metrics-server.ts";
import type { CassandraClient } from "../../src/store/cassandra.ts";

/**
 * The real service for end-to-end and integration tests: the local stack (started if needed, or
 * the servers named in the environment), topics, migrations, and the chosen roles in this process
 * on a free port. Nothing is mocked.
 */
export interface TestService {
  url: string;
  /**
   * The process's metrics port (GET /metrics, /live, /ready), as `npm start` serves it beside the
   * gateway (src/app/cli.ts), on a port the system picks; the gateway's own port has no /metrics.
   */
  metricsUrl: string;
  config: Config;
  stack: StackInfo;
  /** Where the servers are, for code that makes its own clients (replay workers). */
  infra: Infra;
  kafka: KafkaClient;
  cassandra: CassandraClient;
  stop(): Promise<void>;
}

const DEFAULT_ROLES: readonly Role[] = ["actors", "projector", "indexer", "gateway"];

export async function startTestService(
  opts: { roles?: readonly Role[]; env?: Record<string, string> } = {},
): Promise<TestService> {
  const stack = await ensureStack({ root: ".local" });
  const config = parseConfig({
    LOG_LEVEL: "warn",
    STEALTH_ENABLED: "true",
    ...process.env,
    PORT: "0",
    ...opts.env,
  });
  const { abort, ...ctx } = await boot(config, createLogger(config.LOG_LEVEL, "test"), {});
  const running: RunningRole[] = [];
  // By default the roles every session test needs; the executor and the webhooks worker only
  // where asked for, so suites that drive the executor themselves (a child process they kill) own it.
  const wanted = opts.roles ?? DEFAULT_ROLES;
  for (const role of ROLES) {
    if (wanted.includes(role)) running.push(await startRole(role, ctx));
  }
  const gateway = running.find((r) => r.role === "gateway");
  const url = gateway ? (gateway.summary.match(/http:\/\/[^\s]+/)?.[0] ?? "") : "";
  const metrics = await startMetricsServer({ host: "127.0.0.1", port: 0, registry });
  metrics.ready();
  return {
    url,
    metricsUrl: `http://127.0.0.1:${metrics.port}`,
    config: ctx.config,
    stack,
    infra: ctx.infra,
    kafka: ctx.kafka,
    cassandra: ctx.cassandra,
    async stop() {
      abort.abort();
      for (const r of running.reverse()) await r.stop();
      await ctx.cassandra.shutdown();
      await metrics.close();
    },
  };
}
