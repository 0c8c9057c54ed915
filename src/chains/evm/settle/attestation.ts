import { backoff } from "../../../support/retry.ts";
import type { AttestedMessage } from "../../adapter.ts";
import { StepRefused, UpstreamUnavailable } from "../../execution-errors.ts";

/** How often the API is asked again while the attestation is not ready: 250 ms doubling to 5 s. */
const POLL = { baseMs: 250, maxMs: 5000 };
const REQUEST_TIMEOUT_MS = 10_000;

type Answer = { messages?: Array<{ message: string; attestation: string; status: string }> };

/**
 * Polls Circle's attestation API (`GET /v2/messages/{sourceDomain}?transactionHash=`, the local
 * stack's attester speaks the same) until the burn of `txHash` is attested, or `timeoutMs` passes.
 * A 404 is "not indexed yet" and a pending status "not final yet": both are asked again.
 */
export async function fetchAttestation(opts: {
  apiUrl: string;
  sourceDomain: number;
  txHash: `0x${string}`;
  timeoutMs: number;
  signal: AbortSignal;
}): Promise<AttestedMessage> {
  const url = `${opts.apiUrl.replace(/\/$/, "")}/v2/messages/${opts.sourceDomain}?transactionHash=${opts.txHash}`;
  const deadline = Date.now() + opts.timeoutMs;
  let last = "no answer yet";
  for (let tries = 1; ; tries++) {
    opts.signal.throwIfAborted();
    try {
      const res = await fetch(url, {
        signal: AbortSignal.any([opts.signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]),
      });
      if (res.status === 400)
        throw new StepRefused(`attestation API refused ${url}: ${await res.text()}`, opts.txHash);
      if (res.ok) {
        const ready = ((await res.json()) as Answer).messages?.find((m) => m.status === "complete");
        if (ready && ready.attestation !== "PENDING")
          return { message: ready.message, attestation: ready.attestation };
        last = "attestation pending";
      } else last = `HTTP ${res.status}`;
    } catch (err) {
      if (err instanceof StepRefused || opts.signal.aborted) throw err;
      last = (err as Error).message;
    }
    if (Date.now() >= deadline)
      throw new UpstreamUnavailable(
        `no attestation for ${opts.txHash} after ${opts.timeoutMs} ms (${last})`,
        opts.txHash,
      );
    await new Promise((r) =>
      setTimeout(r, Math.min(backoff(tries, POLL, Math.random()), Math.max(0, deadline - Date.now()))),
    );
  }
}
