import { randomUUID } from "node:crypto";
import { expect } from "vitest";

/** A merchant as the operator route answers it: its id and both keys. */
export interface NewMerchant {
  id: string;
  secretKey: string;
  publishableKey: string;
}

/**
 * A merchant made through `POST /v1/operator/merchants` (the 201 checked), named `name`, with an
 * e-mail of its own so that files and reruns never collide on one.
 */
export async function createMerchant(
  baseUrl: string,
  operatorSecret: string,
  name: string,
): Promise<NewMerchant> {
  const res = await fetch(`${baseUrl}/v1/operator/merchants`, {
    method: "POST",
    headers: { authorization: `Bearer ${operatorSecret}`, "content-type": "application/json" },
    body: JSON.stringify({
      name,
      email: `${name.toLowerCase().replaceAll(" ", "-")}-${randomUUID()}@merchant.test`,
    }),
  });
  const text = await res.text();
  expect(res.status, text).toBe(201);
  const body = JSON.parse(text) as { merchant: { id: string }; secret_key: string; publishable_key: string };
  return { id: body.merchant.id, secretKey: body.secret_key, publishableKey: body.publishable_key };
}
