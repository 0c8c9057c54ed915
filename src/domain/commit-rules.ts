import type { CommitIntent, CreateSession } from "./commands.ts";
import { type Rejection, reject } from "./rejections.ts";
import { type Authorization, type Session, sameId } from "./types.ts";

// The rules of a commit and of a pk-tagged creation that depend on the session or its merchant,
// decided here, once, on what the command carries: the gateway checks signatures and shape, and puts
// what it verified (the burner its signatures are from, the authorization, the merchant's pins) on
// the command. A field the command does not carry (null: a command written before the rule moved
// here, whose gateway checked it itself) leaves its rule out.

/**
 * A commit names the session's burner and the authorization the session was created (or
 * registered) with; a checkout session's Intent pays the destination its merchant pins now for
 * the deposit's chain, and a Flow D session's the stealth address it was created with.
 */
export function commitRefusal(command: CommitIntent["data"], state: Session): Rejection | null {
  const { burner, auth, merchantPins, intent, sourceChainId } = command;
  if (burner !== null || auth !== null) {
    if (state.burner === null || state.auth === null)
      return reject("not_detected", "no burner is registered on this session yet");
    if (burner !== null && !sameId(burner, state.burner)) return reject("burner_mismatch");
    if (auth !== null && !sameAuthorization(auth, state.auth)) return reject("authorization_mismatch");
  }
  // Flow D: the stealth address derived for the session overrides the merchant's pins (docs/STEALTH.md).
  const pins = state.stealthDestinations.length > 0 ? state.pinnedDestinations : merchantPins;
  if (pins !== null && state.flow === "checkout" && state.merchantId !== null) {
    const pin = pins.find((p) => p.sourceChainId === sourceChainId);
    if (!pin) return reject("no_destination");
    if (pin.destChainId !== intent.destChainId || !sameId(pin.destAddress, intent.destAddr))
      return reject("destination_mismatch");
  }
  return null;
}

/** The same authorization: addresses and r/s compared as values, whatever their spelling. */
export function sameAuthorization(a: Authorization, b: Authorization): boolean {
  return (
    a.address.toLowerCase() === b.address.toLowerCase() &&
    a.chainId === b.chainId &&
    a.nonce === b.nonce &&
    BigInt(a.r) === BigInt(b.r) &&
    BigInt(a.s) === BigInt(b.s) &&
    a.yParity === b.yParity
  );
}

/**
 * A P2P session made with a merchant's `pk_` is the merchant's (its webhooks are signed for it), yet
 * its creator names the destination, and a `pk_` is public. With the merchant's
 * `p2p_pinned_destinations_only` setting (`pinnedOnly` on the command), the destination must be the
 * one pinned for the chain the burner's authorization is for (403 destination_not_pinned). The
 * destination is never filled in from the pin: the interface makes it required, and a payer's wallet
 * should show the address it signs for.
 */
export function pinnedOnlyRefusal(data: CreateSession["data"]): Rejection | null {
  if (!data.pinnedOnly) return null;
  const source = data.auth?.chainId ?? null;
  // chainId 0 authorizes the burner on every chain: the money could arrive on any of them.
  if (source === null || source === 0)
    return reject(
      "destination_not_pinned",
      "this merchant accepts P2P sessions only to its pinned destinations: authorize the burner for one chain (eip7702_auth.chainId 0 is for every chain)",
    );
  const pin = data.pinnedDestinations.find((p) => p.sourceChainId === source);
  if (!pin)
    return reject(
      "destination_not_pinned",
      `this merchant accepts P2P sessions only to its pinned destinations, and pinned none for chain ${source}`,
    );
  if (
    pin.destChainId !== data.destChainId ||
    data.destAddress === null ||
    !sameId(pin.destAddress, data.destAddress)
  )
    return reject(
      "destination_not_pinned",
      `this merchant accepts P2P sessions from chain ${source} only to the destination it pinned for that chain`,
    );
  return null;
}
