/** A response body as tests read it: shape is checked by the assertions that use it. */
// biome-ignore lint/suspicious/noExplicitAny: test bodies are asserted field by field where read
export type Body = any;

export const json = async (res: Response): Promise<Body> => res.json();

/**
 * An answer as a test of refusals reads it: the status, the raw text, and the `error` field when the
 * body is a JSON object (undefined when it is not JSON at all).
 */
export async function answerOf(res: Response): Promise<{ status: number; text: string; error: unknown }> {
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, text, error: (body as { error?: unknown } | null | undefined)?.error };
}

/** A refusal as the interface promises it: a 4xx whose body is `{ "error": string }`. */
export const isClientError = (a: { status: number; error: unknown }): boolean =>
  a.status >= 400 && a.status < 500 && typeof a.error === "string";

/** Options of requestJson: a Bearer key, a JSON body (POST unless `method` says otherwise), headers. */
export interface JsonRequest {
  method?: string;
  key?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** One request to the gateway at `baseUrl`: its status, headers and parsed JSON body (null when empty). */
export async function requestJson(baseUrl: string, path: string, init: JsonRequest = {}) {
  const res = await fetch(`${baseUrl}${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: {
      ...(init.key ? { authorization: `Bearer ${init.key}` } : {}),
      ...(init.body === undefined ? {} : { "content-type": "application/json" }),
      ...init.headers,
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : null) as Body };
}
