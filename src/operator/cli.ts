#!/usr/bin/env node
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

/**
 * `npm run operator -- <command>`: the operator's tools over the gateway's /v1/operator/* routes
 * (docs/OPERATIONS.md), so the CLI needs no access to Kafka or Cassandra, only the gateway's URL
 * and OPERATOR_SECRET, and does exactly what the routes do. It prints the answer as JSON.
 */
export const OPERATOR_USAGE = `usage: npm run operator -- <command>    (GATEWAY_URL, default http://127.0.0.1:8080; OPERATOR_SECRET)

  journal <session-id>                      the session's events on session.events, decoded, with partition, offset, time
  dead-letters [--topic T]                  the parked records (of topic T), oldest first, with their re-drive
  redrive --topic T --partition P --offset O
                                            send one parked record back to its topic, once
  lag                                       consumer lag per role (committed offsets against high watermarks)
  read-models                               the sessions tables: active, followed, retired
  build --table T                           replay session.events into new table T; the projectors then follow it
  switch --table T                          make followed table T the one the gateways read
  retire --table T                          stop writing followed table T (kept until dropped by hand)`;

export interface OperatorRequest {
  method: "GET" | "POST";
  path: string;
  body?: unknown;
}

/** The route a command calls, or the usage problem. Pure: the CLI's grammar, tested on its own. */
export function operatorRequest(argv: string[]): OperatorRequest | { usage: string } {
  const [command, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    strict: false,
    options: {
      topic: { type: "string" },
      partition: { type: "string" },
      offset: { type: "string" },
      table: { type: "string" },
    },
  });
  const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);
  const int = (v: unknown): number | undefined => {
    const s = str(v);
    return s !== undefined && /^\d+$/.test(s) ? Number(s) : undefined;
  };
  const table = str(values.table);
  switch (command) {
    case "journal": {
      const [id] = positionals;
      if (!id) return { usage: "journal needs a session id" };
      return { method: "GET", path: `/v1/operator/sessions/${encodeURIComponent(id)}/journal` };
    }
    case "dead-letters": {
      const topic = str(values.topic);
      const query = topic ? `?topic=${encodeURIComponent(topic)}` : "";
      return { method: "GET", path: `/v1/operator/dead-letters${query}` };
    }
    case "redrive": {
      const where = {
        topic: str(values.topic),
        partition: int(values.partition),
        offset: int(values.offset),
      };
      if (where.topic === undefined || where.partition === undefined || where.offset === undefined)
        return { usage: "redrive needs --topic, --partition and --offset (integers)" };
      return { method: "POST", path: "/v1/operator/dead-letters/redrive", body: where };
    }
    case "lag":
      return { method: "GET", path: "/v1/operator/lag" };
    case "read-models":
      return { method: "GET", path: "/v1/operator/read-models" };
    case "build":
    case "switch":
    case "retire": {
      if (!table) return { usage: `${command} needs --table` };
      const path = command === "build" ? "/v1/operator/read-models" : `/v1/operator/read-models/${command}`;
      return { method: "POST", path, body: { table } };
    }
    default:
      return { usage: command ? `unknown command: ${command}` : "no command" };
  }
}

/** Runs a command against the gateway: 0 on a 2xx, 1 on an error answer, 2 on a usage or setting problem. */
export async function runOperatorCli(
  argv: string[],
  env: NodeJS.ProcessEnv,
  out: { stdout: (s: string) => void; stderr: (s: string) => void },
): Promise<number> {
  const secret = env.OPERATOR_SECRET;
  if (!secret) {
    out.stderr("OPERATOR_SECRET is not set: the operator tools exist only with it (docs/OPERATIONS.md)\n");
    return 2;
  }
  const request = operatorRequest(argv);
  if ("usage" in request) {
    out.stderr(`${request.usage}\n\n${OPERATOR_USAGE}\n`);
    return 2;
  }
  const base = (env.GATEWAY_URL ?? "http://127.0.0.1:8080").replace(/\/+$/, "");
  const res = await fetch(`${base}${request.path}`, {
    method: request.method,
    headers: {
      authorization: `Bearer ${secret}`,
      ...(request.body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
  });
  const text = await res.text();
  if (!res.ok) {
    out.stderr(`${res.status}: ${errorOf(text)}\n`);
    return 1;
  }
  out.stdout(`${JSON.stringify(JSON.parse(text), null, 2)}\n`);
  return 0;
}

function errorOf(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: unknown };
    return typeof body.error === "string" ? body.error : text;
  } catch {
    return text;
  }
}

// Run as the script (npm run operator), not when a test imports it.
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  runOperatorCli(process.argv.slice(2), process.env, {
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
  }).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
