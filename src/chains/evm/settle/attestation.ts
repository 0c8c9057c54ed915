import type { Pacer } from "../../../support/pacer.ts";
import { sleep } from "../../../support/retry.ts";
import type { AttestedMessage } from "../../adapter.ts";
import { StepRefused, UpstreamUnavailable } from "../../execution-errors.ts";

const REQUEST_TIMEOUT_MS = 10_000;

type Answer = { messages?: Array<{ message: string; attestation: string; status: string }> };

/**
 * Polls Circle's attestation API (`GET /v2/messages/{sourceDomain}?transactionHash=`, the local
 * stack's attester speaks the same) until the burn of `txHash` is attested, or `timeoutMs` passes.
 * A 404 is "not indexed yet" and a pending status "not final yet": both are asked again, every
 * `pollMs`, each ask taking its turn from the process's `pacer`. The spacing is even rather than
 * doubling, so an attestation is seen at most `pollMs` after it is ready however long it took (a
 * doubling poll that had reached 4 s waited up to 4 s more); the pacer, not the spacing, is what keeps
 * many waiting burns within the API's rate limit.
 */
export async function fetchAttestation(opts: {
  apiUrl: string;
  sourceDomain: number;
  txHash: `0x${string}`;
  timeoutMs: number;
  pollMs: number;
  pacer: Pacer;
  signal: AbortSignal;
}): Promise<AttestedMessage> {
  const url = `${opts.apiUrl.replace(/\/$/, "")}/v2/messages/${opts.sourceDomain}?transactionHash=${opts.txHash}`;
  const deadline = Date.now() + opts.timeoutMs;
  let last = "no answer yet";
  for (;;) {
    await opts.pacer.turn(opts.signal);
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
      } else if (res.status === 429) {
        // Over the API's rate limit (another process shares it): wait as long as it says, or a minute.
        last = "HTTP 429";
        const retryAfter = Number(res.headers.get("retry-after"));
        await sleep(Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : 60_000, opts.signal);
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
    await sleep(Math.min(opts.pollMs, Math.max(0, deadline - Date.now())), opts.signal);
  }
}
