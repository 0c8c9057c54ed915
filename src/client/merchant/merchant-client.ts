import { type ApiClient, type ApiClientConfig, type ApiRequest, createApiClient } from "../api-client.ts";
import { ClientError } from "../errors.ts";

export interface MerchantClientConfig extends ApiClientConfig {
  /** The merchant's `sk_test_…` / `sk_live_…` key; sent as `Authorization: Bearer sk_…`. */
  secretKey: string;
}

/**
 * The payer's API client (its base URL, timeout, retry and error rules) with the merchant's secret
 * key on every request. `mode` is the key's (`test` in development, `live` in production); the key
 * itself is not a property, so logging the client does not print it.
 */
export interface MerchantClient extends ApiClient {
  readonly mode: "test" | "live";
}

const SECRET_KEY = /^sk_(test|live)_[A-Za-z0-9_-]+$/;

/**
 * @example
 * import { createMerchantClient, getMerchant } from "deposit-settlement/merchant";
 * const merchant = createMerchantClient({ baseUrl: "http://127.0.0.1:8080", secretKey: process.env.SK });
 * console.log((await getMerchant(merchant)).id);
 */
export function createMerchantClient(config: MerchantClientConfig): MerchantClient {
  const mode = SECRET_KEY.exec(config.secretKey ?? "")?.[1] as "test" | "live" | undefined;
  // A pk_ or a cs_ here is a mistake that every request would answer 401: say so at once.
  if (!mode)
    throw new ClientError(
      "config_error",
      "createMerchantClient: secretKey is not an sk_test_ or sk_live_ key",
    );
  const { secretKey, ...apiConfig } = config;
  const api = createApiClient(apiConfig);
  const authorization = `Bearer ${secretKey}`;
  const authorized = <R extends Pick<ApiRequest, "headers">>(req: R): R => ({
    ...req,
    headers: { ...req.headers, authorization },
  });
  return {
    baseUrl: api.baseUrl,
    timeout: api.timeout,
    retry: api.retry,
    mode,
    request: <T>(req: ApiRequest) => api.request<T>(authorized(req)),
    stream: (req) => api.stream(authorized(req)),
  };
}
