import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import { BaseError } from "../support/errors.ts";

/**
 * Server-side request forgery guard (interface.md, "Delivery rules" 4 and 5). A webhook URL is a
 * merchant's input that makes us open a connection, so before every attempt the host is resolved,
 * EVERY answer is checked (one bad answer refuses the host: a DNS server that mixes a public and a
 * private address must not get its way by luck of the order), and the caller connects to exactly
 * the address returned here, never resolving again, so a DNS answer that changes between the check
 * and the connect (rebinding) cannot move the connection. IP literals are checked the same way.
 *
 * Ranges: node:net's BlockList, which also matches an IPv4-mapped IPv6 address (::ffff:10.0.0.1)
 * against its IPv4 subnet, so every IPv4 range below covers its mapped form without a second entry.
 * The IPv6 ranges apply to IPv6 addresses only: BlockList also matches a plain IPv4 address against
 * ::ffff:0:0/96, which would refuse every IPv4 host.
 */
const RANGES: ReadonlyArray<readonly [net: string, prefix: number, family: "ipv4" | "ipv6", why: string]> = [
  ["127.0.0.0", 8, "ipv4", "loopback"],
  ["::1", 128, "ipv6", "loopback"],
  ["0.0.0.0", 8, "ipv4", "this network (0.0.0.0 reaches the local host)"],
  ["::", 128, "ipv6", "unspecified (:: reaches the local host)"],
  ["10.0.0.0", 8, "ipv4", "private"],
  ["172.16.0.0", 12, "ipv4", "private"],
  ["192.168.0.0", 16, "ipv4", "private"],
  ["100.64.0.0", 10, "ipv4", "shared address space (carrier-grade NAT)"],
  ["169.254.0.0", 16, "ipv4", "link-local (cloud metadata services live here)"],
  ["fe80::", 10, "ipv6", "link-local"],
  ["fc00::", 7, "ipv6", "unique local (private)"],
  // Beyond the interface's list (as ipaddr.js's non-unicast ranges, which request-filtering-agent
  // refuses): nothing a merchant's server has, and the IPv6 ranges that carry an IPv4 address to a
  // translator, which could reach an internal IPv4 address the checks above never saw.
  ["224.0.0.0", 4, "ipv4", "multicast"],
  ["240.0.0.0", 4, "ipv4", "reserved (and broadcast)"],
  ["192.0.0.0", 24, "ipv4", "IETF protocol assignments"],
  ["198.18.0.0", 15, "ipv4", "benchmarking"],
  ["ff00::", 8, "ipv6", "multicast"],
  ["64:ff9b::", 96, "ipv6", "NAT64 (embeds an IPv4 address)"],
  ["64:ff9b:1::", 48, "ipv6", "local-use NAT64 (embeds an IPv4 address)"],
  ["2002::", 16, "ipv6", "6to4 (embeds an IPv4 address)"],
  ["2001::", 32, "ipv6", "Teredo (embeds an IPv4 address)"],
  // The forms that carry a whole IPv4 address in an IPv6 one: a stack may connect to the IPv4 inside
  // (mapped), or route it somewhere no IPv4 rule looked (compatible, translated). No merchant needs them.
  ["::ffff:0:0", 96, "ipv6", "IPv4-mapped (an IPv4 address in IPv6 form)"],
  ["::", 96, "ipv6", "IPv4-compatible (deprecated, embeds an IPv4 address)"],
  ["::ffff:0:0:0", 96, "ipv6", "IPv4-translated (embeds an IPv4 address)"],
];

const lists = RANGES.map(([net, prefix, family, why]) => {
  const list = new BlockList();
  list.addSubnet(net, prefix, family);
  return { list, family, why, loopback: why === "loopback" };
});

/** Why `address` (an IP literal) must not be connected to, or null when it may; `allowLoopback` lets 127/8 and ::1 pass. */
export function blockedReason(address: string, opts: { allowLoopback?: boolean } = {}): string | null {
  const family = isIP(address);
  if (family === 0) return "not an IP address";
  const type = family === 4 ? "ipv4" : "ipv6";
  const matching = lists.filter(
    (l) => !(l.family === "ipv6" && type === "ipv4") && l.list.check(address, type),
  );
  // Allowed loopback wins over the wider ranges that contain it (::1 is in ::/96, ::ffff:127.0.0.1 is mapped).
  if (opts.allowLoopback && matching.some((l) => l.loopback)) return null;
  return matching[0]?.why ?? null;
}

/** Refused before any connection was made: the URL's scheme, or an address in a blocked range. */
export class WebhookUrlRefused extends BaseError<"webhook_url_refused"> {
  override name = "WebhookUrlRefused";
  readonly code = "webhook_url_refused";
  // DNS can change, and a URL's owner can fix it: a later attempt may pass.
  readonly retryable = true;
}

export interface UrlPolicy {
  /** MERCHANT_MODE=development and WEBHOOK_ALLOW_INSECURE: `http://localhost` (and loopback for it) allowed. */
  allowInsecureLocalhost: boolean;
}

/** The policy from the config: the PUT route and the worker must apply the same one. */
export function urlPolicyFor(config: { MERCHANT_MODE: string; WEBHOOK_ALLOW_INSECURE: boolean }): UrlPolicy {
  return { allowInsecureLocalhost: config.MERCHANT_MODE === "development" && config.WEBHOOK_ALLOW_INSECURE };
}

/**
 * The URL rule: https, or http://localhost when the policy allows it; no credentials in the URL.
 * Returns the parsed URL and whether its host may resolve to loopback (only that localhost URL).
 * The WHATWG parser already turns decimal, octal and hex IPv4 forms (http://2130706433,
 * http://0177.0.0.1) into dotted quads, so the address check sees what a connect would use.
 */
export function checkUrlRule(raw: string, policy: UrlPolicy): { url: URL; allowLoopback: boolean } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookUrlRefused("the webhook URL does not parse");
  }
  if (url.username || url.password) throw new WebhookUrlRefused("the webhook URL carries credentials");
  const localhost = policy.allowInsecureLocalhost && url.hostname === "localhost";
  if (url.protocol !== "https:" && !(url.protocol === "http:" && localhost))
    throw new WebhookUrlRefused(
      policy.allowInsecureLocalhost
        ? "the webhook URL must be https (or http://localhost)"
        : "the webhook URL must be https",
    );
  return { url, allowLoopback: localhost };
}

export type Resolver = (host: string) => Promise<Array<{ address: string; family: number }>>;

/** Every address of `host` (A and AAAA, as the system resolver answers), IPv4 first. */
export const systemResolver: Resolver = (host) => lookup(host, { all: true, order: "ipv4first" });

export interface Target {
  url: URL;
  /** The one address to connect to: checked, with every other answer for the host. */
  address: string;
  family: 4 | 6;
}

/**
 * The URL rule, then the host's resolution with every answer checked; the first answer is the target.
 * `signal` bounds the look-up: a name server that never answers costs the attempt its timeout, no
 * more (getaddrinfo cannot be cancelled, so the look-up itself ends when the system resolver gives up).
 */
export async function resolveTarget(
  raw: string,
  policy: UrlPolicy,
  resolve: Resolver = systemResolver,
  signal?: AbortSignal,
): Promise<Target> {
  const { url, allowLoopback } = checkUrlRule(raw, policy);
  // An IPv6 literal keeps its brackets in `hostname`.
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  let answers: Array<{ address: string; family: number }>;
  if (isIP(host) !== 0) answers = [{ address: host, family: isIP(host) }];
  else {
    try {
      answers = await (signal ? untilAborted(resolve(host), signal) : resolve(host));
    } catch (err) {
      if (signal?.aborted) throw new WebhookUrlRefused(`the webhook host ${host} did not resolve in time`);
      throw new WebhookUrlRefused(`the webhook host ${host} does not resolve`, { cause: err });
    }
  }
  if (answers.length === 0) throw new WebhookUrlRefused(`the webhook host ${host} does not resolve`);
  for (const { address } of answers) {
    const why = blockedReason(address, { allowLoopback });
    if (why) throw new WebhookUrlRefused(`the webhook host ${host} resolves to ${address}: ${why}`);
  }
  const first = answers[0] as { address: string; family: number };
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}

/** `work`'s outcome, or a rejection as soon as `signal` aborts, whichever comes first. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}
