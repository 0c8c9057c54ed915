import { type ApiClient, getSession, type Session } from "../../src/client/index.ts";

/** Reads the session every 200 ms until `pred` holds; fails with the last state after `timeoutMs`. */
export async function sessionUntil(
  client: ApiClient,
  id: string,
  pred: (s: Session) => boolean,
  timeoutMs = 60_000,
): Promise<Session> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = await getSession(client, { id });
    if (pred(s)) return s;
    if (Date.now() > deadline) throw new Error(`session ${id} never matched; last: ${JSON.stringify(s)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
