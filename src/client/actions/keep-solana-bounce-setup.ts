import { sleep } from "../../support/retry.ts";
import type { ApiClient } from "../api-client.ts";
import type { ApiError, ClientError } from "../errors.ts";
import {
  type AttachSolanaBounceSetupParameters,
  attachSolanaBounceSetup,
} from "./attach-solana-bounce-setup.ts";

/**
 * How long a blockhash is good for, at the least: a transaction is taken for 150 blocks after its
 * blockhash, and Solana's slots are never faster than their 400 ms target (slower on a busy mainnet,
 * exactly 400 ms on the local node, docs/SOLANA.md), so 60 s.
 */
const BLOCKHASH_LIFE_MS = 150 * 400;

/**
 * How often the setup is signed again by default: every third of a blockhash's life, so the one the
 * service holds always has at least two thirds of it (40 s) left, the time a deposit sent just before
 * the payer's page closed has to be detected for it to be relayed.
 */
export const BOUNCE_SETUP_REFRESH_MS = BLOCKHASH_LIFE_MS / 3;

export interface KeepSolanaBounceSetupParameters extends AttachSolanaBounceSetupParameters {
  /** How often a new setup is signed and attached, ms. Default BOUNCE_SETUP_REFRESH_MS (20 s). */
  every?: number | undefined;
  /** How long before the first one, ms (an app that has just attached one itself). Default 0. */
  startIn?: number | undefined;
  /** Each attach that failed (the network, a 502): reported, and tried again on the next round. */
  onError?: ((err: ApiError | ClientError) => void) | undefined;
}

/** How many setups were attached; it resolves once the service takes no more (409) or `signal` aborts. */
export type KeepSolanaBounceSetupReturnType = number;
/** Never rejects: every failure goes to `onError`. */
export type KeepSolanaBounceSetupErrorType = never;

/**
 * Keeps a fresh bounce setup attached to a Solana session while its payer may still pay
 * (`attachSolanaBounceSetup` now, then every `every` ms on a new blockhash): each replaces the one the
 * service holds, and the one held when an accepted deposit is recorded is relayed, once. So a payer
 * who pays by hand (a phone wallet scanning the Solana Pay request, which tells the app nothing) and
 * then closes the app is bounced if the session ends unsettled, as long as the deposit is detected
 * within what is left of the held setup's blockhash (docs/LINKS.md, "A Solana tab closed before
 * detection"). It stops by itself once the service takes no more: the setup was relayed, or the
 * session was committed or ended. Nothing is paid by anyone for a setup that is only kept.
 *
 * @example
 * import { keepSolanaBounceSetup } from "deposit-settlement/client";
 * const stop = new AbortController();
 * void keepSolanaBounceSetup(client, { id, terms: created.sweep, burner, refundTo, signal: stop.signal });
 * // ... once the deposit is detected (the app signs the sweep then): stop.abort();
 */
export async function keepSolanaBounceSetup(
  client: ApiClient,
  params: KeepSolanaBounceSetupParameters,
): Promise<KeepSolanaBounceSetupReturnType> {
  const { signal, every = BOUNCE_SETUP_REFRESH_MS } = params;
  let attached = 0;
  // sleep rejects once `signal` aborts (before or during the wait): that ends the loop.
  const waited = (ms: number) =>
    sleep(ms, signal).then(
      () => true,
      () => false,
    );
  for (let wait = params.startIn ?? 0; await waited(wait); wait = every) {
    try {
      if (!(await attachSolanaBounceSetup(client, params))) return attached;
      attached++;
    } catch (err) {
      if (signal?.aborted) break;
      params.onError?.(err as ApiError | ClientError);
    }
  }
  return attached;
}
