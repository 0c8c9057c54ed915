import { createParser, type EventSourceMessage } from "eventsource-parser";

/**
 * A test-side SSE reader over fetch: collects every event and every comment (keep-alives), and
 * lets a test wait for the first event matching a predicate.
 */
export interface SseReader {
  status: number;
  headers: Headers;
  events: EventSourceMessage[];
  comments: string[];
  waitFor(pred: (e: EventSourceMessage) => boolean, timeoutMs?: number): Promise<EventSourceMessage>;
  waitForComment(timeoutMs?: number): Promise<string>;
  close(): void;
}

export async function openSse(url: string): Promise<SseReader> {
  const abort = new AbortController();
  const res = await fetch(url, { signal: abort.signal, headers: { accept: "text/event-stream" } });
  const events: EventSourceMessage[] = [];
  const comments: string[] = [];
  const wake = new Set<() => void>();
  const notify = () => {
    for (const w of wake) w();
  };
  const parser = createParser({
    onEvent: (e) => {
      events.push(e);
      notify();
    },
    onComment: (c) => {
      comments.push(c);
      notify();
    },
  });
  if (res.body && res.headers.get("content-type")?.includes("text/event-stream")) {
    void (async () => {
      const decoder = new TextDecoder();
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>)
          parser.feed(decoder.decode(chunk, { stream: true }));
      } catch {
        // closed by the test
      }
    })();
  }
  const until = <T>(check: () => T | undefined, timeoutMs: number, what: string) =>
    new Promise<T>((resolve, reject) => {
      const hit = check();
      if (hit !== undefined) return resolve(hit);
      const timer = setTimeout(() => {
        wake.delete(onWake);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      const onWake = () => {
        const found = check();
        if (found === undefined) return;
        clearTimeout(timer);
        wake.delete(onWake);
        resolve(found);
      };
      wake.add(onWake);
    });
  return {
    status: res.status,
    headers: res.headers,
    events,
    comments,
    waitFor: (pred, timeoutMs = 30_000) => until(() => events.find(pred), timeoutMs, "an SSE event"),
    waitForComment: (timeoutMs = 30_000) => until(() => comments[0], timeoutMs, "an SSE comment"),
    close: () => abort.abort(),
  };
}
