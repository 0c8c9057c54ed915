import type { z } from "zod";
import { ProviderUnavailableError } from "./types.ts";

/**
 * One provider request: bounded by `timeoutMs`, answered as JSON of the given shape. A network
 * failure, a timeout, a non-2xx status or an answer of another shape is a ProviderUnavailableError
 * (502): the provider's own message is kept as the cause, never shown to our caller, since it may
 * echo the API key (Alchemy's URLs carry it).
 */
export async function providerJson<T extends z.ZodType>(
  provider: string,
  url: string,
  init: ProviderRequest,
  shape: T,
): Promise<z.infer<T>> {
  return (await providerJsonOrNone(provider, url, init, shape, () => false)) as z.infer<T>;
}

interface ProviderRequest {
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: unknown;
  timeoutMs: number;
}

/**
 * providerJson, except that an error answer `isNone` recognises (the provider's documented "no
 * result", such as a router's "no route for this pair") is null rather than a failure.
 */
export async function providerJsonOrNone<T extends z.ZodType>(
  provider: string,
  url: string,
  init: ProviderRequest,
  shape: T,
  isNone: (status: number, body: unknown) => boolean,
): Promise<z.infer<T> | null> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: init.method ?? "GET",
      headers: {
        accept: "application/json",
        ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
        ...init.headers,
      },
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
      signal: AbortSignal.timeout(init.timeoutMs),
    });
  } catch (err) {
    const timedOut = (err as Error).name === "TimeoutError";
    throw new ProviderUnavailableError(
      timedOut
        ? `${provider} did not answer within ${init.timeoutMs} ms`
        : `${provider} could not be reached`,
      { cause: err },
    );
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch (err) {
    throw new ProviderUnavailableError(`${provider} answered ${response.status} with no JSON`, {
      cause: err,
    });
  }
  if (!response.ok) {
    if (isNone(response.status, body)) return null;
    throw new ProviderUnavailableError(`${provider} answered ${response.status}`, {
      cause: new Error(JSON.stringify(body).slice(0, 500)),
    });
  }
  const parsed = shape.safeParse(body);
  if (!parsed.success) {
    throw new ProviderUnavailableError(`${provider} answered an unexpected shape`, { cause: parsed.error });
  }
  return parsed.data;
}
