/**
 * The gateway's graceful stop, many times over (issue 29, item 1; docs/RELIABILITY.md, "Graceful
 * stop"): a gateway process (the bundled CLI) over the stack's broker and Cassandra, a trickle of
 * GETs from kept-alive clients, SIGTERM, and how every request ended; then the next run.
 *
 *   flock /tmp/chain-tests.lock npx tsx test/support/with-stack.ts npx tsx test/bench/graceful-stop.ts 20
 *
 * Options: --direct (the clients keep connecting straight to the stopping gateway, ignoring its
 * /ready: shows the kernel's resets at the listener's close), --clients=N (3), --pause-ms=N (20),
 * --drain-ms=N (1500), --poll-ms=N (the balancer's look at /ready, 250), --lag-ms=N (from its
 * look to its acting on a 503, 300). Exits 1 when, behind
 * the balancer, any request failed or was answered with a 5xx other than a clean 503.
 */
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { startChild } from "../support/child-process.ts";
import { bundleCli } from "../support/fault-proof/bundle.ts";
import { READY } from "../support/fault-proof/cluster.ts";
import { LOADED_GATEWAY_ENV } from "../support/gateway-children.ts";
import { describeTrickle, trickleThroughStop } from "../support/graceful-stop.ts";

const METRICS_LINE = /^metrics\s+(http:\/\/\S+)\/metrics/;

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      direct: { type: "boolean", default: false },
      clients: { type: "string", default: "3" },
      "pause-ms": { type: "string", default: "20" },
      "drain-ms": { type: "string", default: "1500" },
      "poll-ms": { type: "string", default: "250" },
      "lag-ms": { type: "string", default: "300" },
    },
  });
  const runs = Number(positionals[0] ?? 10);
  const cli = await bundleCli();
  const load = () => loadavg()[0]?.toFixed(2);
  console.log(
    `${runs} runs, ${values.clients} clients, ${values["pause-ms"]} ms apart, ${
      values.direct
        ? "straight at the gateway"
        : `behind a balancer polling /ready every ${values["poll-ms"]} ms, acting ${values["lag-ms"]} ms later`
    }, drain ${values["drain-ms"]} ms; load average ${load()}`,
  );
  let bad = 0;
  const totals = new Map<string, number>();
  for (let run = 1; run <= runs; run++) {
    let metrics = "";
    const gateway = await startChild(`gateway-${run}`, [cli, "gateway"], {
      env: { ...LOADED_GATEWAY_ENV, SHUTDOWN_DRAIN_MS: String(values["drain-ms"]) },
      tsx: false,
      ready: READY.gateway,
      timeoutMs: 120_000,
      onLine: (l) => {
        metrics = METRICS_LINE.exec(l)?.[1] ?? metrics;
      },
    });
    while (!metrics) await new Promise((r) => setTimeout(r, 50));
    const t = await trickleThroughStop({
      gateway,
      metrics,
      path: "/sessions/00000000-0000-4000-8000-000000000000",
      clients: Number(values.clients),
      pauseMs: Number(values["pause-ms"]),
      balancer: values.direct ? null : { pollMs: Number(values["poll-ms"]), lagMs: Number(values["lag-ms"]) },
    });
    const drainEnd = t.termAt + Number(values["drain-ms"]);
    const failures = t.outcomes.filter((o) => o.error !== undefined);
    for (const o of failures) totals.set(o.error as string, (totals.get(o.error as string) ?? 0) + 1);
    // Where each failure fell against the drain's end (the listener closes just after it).
    const when = failures
      .filter((o) => o.error !== "ECONNREFUSED")
      .map(
        (o) => `${o.error} sent ${o.at - drainEnd} ms, ended ${o.endedAt - drainEnd} ms from the drain's end`,
      );
    const wrong = t.outcomes.filter(
      (o) => o.error !== undefined || ((o.status as number) >= 500 && !(o.status === 503 && o.retryAfter)),
    );
    if (!values.direct && wrong.length > 0) bad++;
    console.log(`run ${run}: ${describeTrickle(t)}${when.length ? `\n  ${when.join("\n  ")}` : ""}`);
  }
  console.log(
    `failures over ${runs} runs: ${[...totals].map(([c, n]) => `${c} ${n}`).join(", ") || "none"}; load average ${load()}`,
  );
  if (bad > 0) {
    console.log(`${bad} runs behind the balancer had a request fail or a 5xx`);
    process.exit(1);
  }
}

await main();
