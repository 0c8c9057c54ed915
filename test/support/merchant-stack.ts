import { afterAll, beforeAll } from "vitest";
import { type Ctx, setUpChains } from "./delegate.ts";
import { type LocalServer, serve } from "./local-http.ts";
import { createMerchant, type NewMerchant } from "./operator.ts";
import { startTestService, type TestService } from "./service.ts";

/**
 * Merchant mode on the real stack, set up before a file's tests and stopped after them: every role
 * in one test service (development mode, an operator secret), a plain http://localhost webhook
 * receiver that answers 200 (development mode allows it with WEBHOOK_ALLOW_INSECURE), and the two
 * local chains. The fields are filled once beforeAll has run; `createMerchant` makes a merchant
 * named `name` through the operator route of this stack's service.
 */
export function merchantStack(operatorSecret: string, timeoutMs: number) {
  const stack = {
    createMerchant: (name: string): Promise<NewMerchant> =>
      createMerchant(stack.service.url, operatorSecret, name),
  } as {
    service: TestService;
    receiver: LocalServer;
    A: Ctx;
    B: Ctx;
    createMerchant(name: string): Promise<NewMerchant>;
  };
  beforeAll(async () => {
    stack.service = await startTestService({
      roles: ["actors", "projector", "indexer", "gateway", "executor", "webhooks"],
      env: {
        MERCHANT_MODE: "development",
        OPERATOR_SECRET: operatorSecret,
        RATE_LIMIT_BURST: "1000",
        WEBHOOK_ALLOW_INSECURE: "true",
        WEBHOOK_POLL_MS: "100",
        INDEXER_POLL_MS: "250",
        SSE_KEEPALIVE_MS: "500",
      },
    });
    stack.receiver = await serve((_req, res) => res.writeHead(200).end());
    const ctx = await setUpChains();
    [stack.A, stack.B] = [ctx("source"), ctx("destination")];
  }, timeoutMs);
  afterAll(async () => {
    await stack.receiver?.close();
    await stack.service?.stop();
  }, timeoutMs);
  return stack;
}
