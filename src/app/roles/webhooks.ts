import { TOPIC } from "../../../topics/catalogue.ts";
import { webhookEndpoints } from "../../store/webhook-endpoints.ts";
import { urlPolicyFor } from "../../webhooks/address-guard.ts";
import { tableEndpointDirectory } from "../../webhooks/endpoints.ts";
import { createWebhookWorker, WEBHOOKS_GROUP } from "../../webhooks/worker.ts";
import type { RoleModule } from "../shared.ts";

/** webhook.events -> the delivery ledger -> signed POSTs to merchants' endpoints (docs/WEBHOOKS.md). */
export const webhooksRole: RoleModule = {
  name: "webhooks",
  async start(shared, log) {
    const c = shared.config;
    // http://localhost (and loopback for it) only in development mode with the insecure switch on.
    const { allowInsecureLocalhost } = urlPolicyFor(c);
    const worker = createWebhookWorker({
      kafka: shared.kafka,
      codecs: shared.codecs,
      cassandra: shared.cassandra,
      endpoints: tableEndpointDirectory(webhookEndpoints(shared.cassandra)),
      log,
      settings: {
        retryBaseMs: c.WEBHOOK_RETRY_BASE_MS,
        connectTimeoutMs: c.WEBHOOK_CONNECT_TIMEOUT_MS,
        totalTimeoutMs: c.WEBHOOK_TIMEOUT_MS,
        leaseMarginMs: c.WEBHOOK_LEASE_MARGIN_MS,
        concurrency: c.WEBHOOK_CONCURRENCY,
        pollMs: c.WEBHOOK_POLL_MS,
        policy: { allowInsecureLocalhost },
      },
    });
    await worker.start();
    shared.metrics.gaugeFrom(
      "settlement_webhook_attempts_in_flight",
      "Webhook attempts this process is making or has queued",
      [],
      () => [{ labels: {}, value: worker.inFlight() }],
    );
    shared.metrics.gaugeFrom(
      "settlement_webhook_ledger_paxos_rounds",
      "Lightweight transactions (Paxos rounds) this process has paid on the delivery ledger since it started: each conditional batch or lone conditional write is one",
      [],
      () => [{ labels: {}, value: worker.ledger.paxosRounds() }],
    );
    return {
      role: "webhooks",
      summary: `${TOPIC.webhookEvents} in group "${WEBHOOKS_GROUP}" -> delivery ledger -> signed POSTs${
        allowInsecureLocalhost ? " (http://localhost allowed: development)" : ""
      }`,
      stop: worker.stop,
    };
  },
};
