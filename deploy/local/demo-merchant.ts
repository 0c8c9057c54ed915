import { randomUUID } from "node:crypto";
import { withMerchantAdmin } from "../../src/app/merchant-cli.ts";
import { createMerchantClient } from "../../src/client/merchant/index.ts";
import { parseConfig } from "../../src/config.ts";
import { createLogger } from "../../src/logging.ts";

/**
 * A new merchant for a demo, made as the operator's `npm run cli -- merchant create` makes one
 * (through Kafka to the running merchant actors, so no operator secret is needed), and the merchant
 * library's client holding its sk_. `npm start` runs in merchant mode (deploy/local/cli.ts).
 */
export async function demoMerchant(name: string, gatewayUrl: string) {
  process.env.MERCHANT_MODE ??= "development";
  const config = parseConfig();
  const log = createLogger("warn", "demo", { format: "json" });
  const created = await withMerchantAdmin(config, log, (admin) =>
    admin.create({ name, email: `demo-${randomUUID()}@merchant.example` }),
  );
  console.log(
    `merchant ${created.merchant.id}: ${created.publishableKey}, ${created.secretKey.slice(0, 12)}…`,
  );
  const merchant = createMerchantClient({ baseUrl: gatewayUrl, secretKey: created.secretKey });
  return { id: created.merchant.id, pk: created.publishableKey, merchant };
}
