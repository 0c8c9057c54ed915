import type { Decider, Decision } from "../decider.ts";
import {
  type IssuedKey,
  MERCHANT_REJECTION_MESSAGES,
  type Merchant,
  type MerchantCommand,
  type MerchantEvent,
  type MerchantEventBody,
  type MerchantRejectionCode,
  type MerchantReply,
  type MerchantState,
} from "./types.ts";

/** How many applied command ids a merchant remembers to recognise a retry. */
const RECENT_COMMANDS = 32;

type MerchantDecision = Decision<MerchantEvent, MerchantReply, MerchantRejectionCode>;

/**
 * The merchant's pure core. Creation is refused once the merchant exists; since every creation with
 * one e-mail is sent to the id that holds the address (src/store/merchant-emails.ts), that is the
 * "duplicate e-mail" 409, decided by the one actor that owns the id, so two concurrent creations
 * cannot both win. The id is random and arrives on the command.
 */
export function decideMerchant(command: MerchantCommand, state: MerchantState): MerchantDecision {
  const accept = (bodies: MerchantEventBody[]): MerchantDecision => {
    const base = state?.version ?? 0;
    const { commandId, issuedAt } = command.metadata;
    const merchantId = command.data.merchantId;
    const events = bodies.map(
      (body, i) =>
        ({
          ...body,
          metadata: { merchantId, version: base + i + 1, occurredAt: issuedAt, commandId },
        }) as MerchantEvent,
    );
    return { ok: true, events, outbox: reply(command, null) };
  };
  const refuse = (code: MerchantRejectionCode): MerchantDecision => {
    const rejection = { code, message: MERCHANT_REJECTION_MESSAGES[code] };
    return { ok: false, rejection, outbox: reply(command, rejection) };
  };

  // A retry of an applied command: accepted again, nothing new (the reply says so).
  if (state?.recent.includes(command.metadata.commandId)) return accept([]);
  const c = command;
  if (c.type === "CreateMerchant") {
    if (state) return refuse("merchant_exists");
    const { name, email, keys } = c.data;
    return accept([{ type: "MerchantCreated", data: { name, email } }, ...keys.map(issued)]);
  }
  if (!state) return refuse("merchant_not_found");
  const active = state.keys.filter((k) => k.revokedAt === null);
  switch (c.type) {
    case "IssueKeys":
      return accept(c.data.keys.map(issued));
    case "RotateKey": {
      const { replaces } = c.data;
      if (replaces !== null && !active.some((k) => k.keyId === replaces)) return refuse("key_revoked");
      const revoked = active.filter((k) => k.kind === c.data.key.kind);
      return accept([...revoked.map(revokedEvent), issued(c.data.key)]);
    }
    case "RevokeKey": {
      const key = state.keys.find((k) => k.keyId === c.data.keyId);
      if (!key) return refuse("key_not_found");
      // Revoking a revoked key changes nothing and is no error: the caller's wish holds.
      return accept(key.revokedAt === null ? [revokedEvent(key)] : []);
    }
    case "SetWebhookEndpoint":
      return accept([
        {
          type: "WebhookEndpointSet",
          data: { endpointId: c.data.endpointId, url: c.data.url, secret: c.data.secret },
        },
      ]);
    case "RemoveWebhookEndpoint":
      return accept(state.webhookEndpoint ? [{ type: "WebhookEndpointRemoved", data: {} }] : []);
    case "PinDestination": {
      const { sourceChainId, destAddress, destChainId } = c.data;
      return accept([{ type: "DestinationPinned", data: { sourceChainId, destAddress, destChainId } }]);
    }
    case "SetAppFee": {
      const { bps, recipient, recipientSol } = c.data;
      return accept([{ type: "AppFeeSet", data: { bps, recipient, recipientSol } }]);
    }
    case "SetSettings":
      return accept([
        { type: "SettingsSet", data: { p2pPinnedDestinationsOnly: c.data.p2pPinnedDestinationsOnly } },
      ]);
    case "SetStealthMeta": {
      const { spendPubkey, viewPubkey, solSpendPubkey, solViewPubkey } = c.data;
      return accept([
        { type: "StealthMetaSet", data: { spendPubkey, viewPubkey, solSpendPubkey, solViewPubkey } },
      ]);
    }
    default:
      return unreachable(c);
  }
}

function unreachable(command: never): never {
  throw new Error(`unknown merchant command ${(command as { type: string }).type}`);
}

const issued = (key: IssuedKey): MerchantEventBody => ({ type: "KeyIssued", data: key });
const revokedEvent = (key: IssuedKey): MerchantEventBody => ({
  type: "KeyRevoked",
  data: { keyId: key.keyId, hash: key.hash },
});

function reply(command: MerchantCommand, rejection: MerchantReply["data"]["rejection"]): MerchantReply[] {
  const { replyTo } = command.metadata;
  return replyTo ? [{ type: "Reply", data: { replyTo, rejection } }] : [];
}

export function evolveMerchant(state: MerchantState, event: MerchantEvent): MerchantState {
  const m = event.metadata;
  if (event.type === "MerchantCreated") {
    return {
      id: m.merchantId,
      version: m.version,
      name: event.data.name,
      email: event.data.email,
      createdAt: m.occurredAt,
      keys: [],
      webhookEndpoint: null,
      destinations: [],
      appFee: null,
      recent: [m.commandId],
    };
  }
  // Every other event follows MerchantCreated in the journal.
  if (!state) return state;
  const next: Merchant = { ...state, version: m.version, recent: remember(state.recent, m.commandId) };
  switch (event.type) {
    case "KeyIssued":
      return { ...next, keys: [...state.keys, { ...event.data, createdAt: m.occurredAt, revokedAt: null }] };
    case "KeyRevoked": {
      const { keyId } = event.data;
      return {
        ...next,
        keys: state.keys.map((k) => (k.keyId === keyId ? { ...k, revokedAt: m.occurredAt } : k)),
      };
    }
    case "WebhookEndpointSet":
      // The secret stays out of the state (and so out of snapshots): only the projection needs it.
      return { ...next, webhookEndpoint: { endpointId: event.data.endpointId, url: event.data.url } };
    case "WebhookEndpointRemoved":
      return { ...next, webhookEndpoint: null };
    case "DestinationPinned": {
      const pin = event.data;
      const others = (state.destinations ?? []).filter((d) => d.sourceChainId !== pin.sourceChainId);
      return { ...next, destinations: [...others, pin] };
    }
    case "AppFeeSet":
      return { ...next, appFee: event.data };
    case "SettingsSet":
      return { ...next, settings: event.data };
    case "StealthMetaSet":
      return { ...next, stealthMeta: event.data };
    default: {
      const unknown: never = event;
      throw new Error(`unknown merchant event ${(unknown as { type: string }).type}`);
    }
  }
}

function remember(recent: string[], commandId: string): string[] {
  if (recent[recent.length - 1] === commandId) return recent;
  return [...recent, commandId].slice(-RECENT_COMMANDS);
}

export const merchantDecider: Decider<
  MerchantCommand,
  MerchantEvent,
  MerchantState,
  MerchantReply,
  MerchantRejectionCode
> = {
  initialState: () => null,
  decide: decideMerchant,
  evolve: evolveMerchant,
  versionOf: (s) => s?.version ?? 0,
};
