import { describe, expect, it } from "vitest";
import {
  blockedReason,
  checkUrlRule,
  type Resolver,
  resolveTarget,
} from "../../src/webhooks/address-guard.ts";

// The SSRF guard's decisions, with the resolver replaced by a table (the real connect is the
// integration test's): every blocked range at both ends and its IPv4-mapped IPv6 form, the addresses
// just outside, IP literals in every spelling the URL parser accepts, and a host with one bad answer.

const PRODUCTION = { allowInsecureLocalhost: false };
const DEV_INSECURE = { allowInsecureLocalhost: true };

const BLOCKED_V4: Array<[string, string]> = [
  ["127.0.0.1", "loopback"],
  ["127.255.255.255", "loopback"],
  ["0.0.0.0", "this network"],
  ["0.255.255.255", "this network"],
  ["10.0.0.0", "private"],
  ["10.255.255.255", "private"],
  ["172.16.0.0", "private"],
  ["172.31.255.255", "private"],
  ["192.168.0.0", "private"],
  ["192.168.255.255", "private"],
  ["100.64.0.0", "shared address space"],
  ["100.127.255.255", "shared address space"],
  ["169.254.0.0", "link-local"],
  ["169.254.169.254", "link-local"],
  ["169.254.255.255", "link-local"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.255", "multicast"],
  ["240.0.0.1", "reserved"],
  ["255.255.255.255", "reserved"],
  ["192.0.0.8", "IETF"],
  ["198.18.0.1", "benchmarking"],
  ["198.19.255.255", "benchmarking"],
];

const BLOCKED_V6: Array<[string, string]> = [
  ["::1", "loopback"],
  ["::", "unspecified"],
  ["fc00::", "unique local"],
  ["fc00::1", "unique local"],
  ["fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "unique local"],
  ["fe80::", "link-local"],
  ["fe80::1", "link-local"],
  ["febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "link-local"],
  ["ff02::1", "multicast"],
  ["64:ff9b::7f00:1", "NAT64"],
  ["64:ff9b::a00:1", "NAT64"],
  ["64:ff9b:1::a00:1", "NAT64"],
  ["2002:7f00:1::", "6to4"],
  ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo"],
  // ::ffff:0:0/96, whole: even a public IPv4 address in mapped form is refused.
  ["::ffff:8.8.8.8", "IPv4-mapped"],
  ["::ffff:808:808", "IPv4-mapped"],
  ["::ffff:5db8:d70e", "IPv4-mapped"],
  ["::ffff:1.1.1.1", "IPv4-mapped"],
  // ::/96, IPv4-compatible: public and private IPv4 inside alike.
  ["::8.8.8.8", "IPv4-compatible"],
  ["::808:808", "IPv4-compatible"],
  ["::10.0.0.1", "IPv4-compatible"],
  ["::127.0.0.1", "IPv4-compatible"],
  ["::2", "IPv4-compatible"],
  ["::ffff:ffff", "IPv4-compatible"],
  ["::ffff:0:8.8.8.8", "IPv4-translated"],
];

const ALLOWED = [
  "1.1.1.1",
  "8.8.8.8",
  "9.255.255.255",
  "11.0.0.0",
  "1.0.0.0",
  "100.63.255.255",
  "100.128.0.0",
  "126.255.255.255",
  "128.0.0.0",
  "169.253.255.255",
  "169.255.0.0",
  "172.15.255.255",
  "172.32.0.0",
  "192.167.255.255",
  "192.169.0.0",
  "192.0.1.0",
  "198.17.255.255",
  "198.20.0.0",
  "223.255.255.255",
  "2606:4700:4700::1111",
  "2001:4860:4860::8888",
  "fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
  "fec0::1",
  // Just outside ::/96, ::ffff:0:0/96 and ::ffff:0:0:0/96.
  "0:0:0:0:0:1::",
  "::1:0:0:0",
  "::fffe:ffff:ffff",
  "::1:0:0",
];

describe("blockedReason", () => {
  it.each(BLOCKED_V4)("refuses %s (%s)", (address, why) => {
    expect(blockedReason(address)).toContain(why);
  });

  it.each(BLOCKED_V4)("refuses the IPv4-mapped IPv6 form of %s (%s), in both spellings", (address, why) => {
    expect(blockedReason(`::ffff:${address}`)).toContain(why);
    const [a, b, c, d] = address.split(".").map(Number) as [number, number, number, number];
    const hex = `::ffff:${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
    expect(blockedReason(hex)).toContain(why);
  });

  it.each(BLOCKED_V6)("refuses %s (%s)", (address, why) => {
    expect(blockedReason(address)).toContain(why);
  });

  it.each(ALLOWED)("allows %s", (address) => {
    expect(blockedReason(address)).toBeNull();
  });

  it("lets loopback pass only when asked, and nothing else with it", () => {
    expect(blockedReason("127.0.0.1", { allowLoopback: true })).toBeNull();
    expect(blockedReason("::1", { allowLoopback: true })).toBeNull();
    expect(blockedReason("::ffff:127.0.0.1", { allowLoopback: true })).toBeNull();
    expect(blockedReason("10.0.0.1", { allowLoopback: true })).toContain("private");
    expect(blockedReason("169.254.169.254", { allowLoopback: true })).toContain("link-local");
    expect(blockedReason("0.0.0.0", { allowLoopback: true })).toContain("this network");
    expect(blockedReason("::ffff:8.8.8.8", { allowLoopback: true })).toContain("IPv4-mapped");
    expect(blockedReason("::127.0.0.1", { allowLoopback: true })).toContain("IPv4-compatible");
  });

  it("refuses what is not an address", () => {
    expect(blockedReason("localhost")).toBe("not an IP address");
  });
});

describe("the URL rule", () => {
  it("wants https in production", () => {
    expect(checkUrlRule("https://hooks.example.com/x", PRODUCTION).allowLoopback).toBe(false);
    for (const url of [
      "http://hooks.example.com/x",
      "http://localhost:8080/",
      "ftp://x.example/",
      "not a url",
    ])
      expect(() => checkUrlRule(url, PRODUCTION)).toThrow(/https|parse/);
  });

  it("allows http://localhost (and loopback for it) only in development with the insecure switch", () => {
    expect(checkUrlRule("http://localhost:9000/hook", DEV_INSECURE).allowLoopback).toBe(true);
    expect(checkUrlRule("https://localhost:9000/hook", DEV_INSECURE).allowLoopback).toBe(true);
    // Only the name localhost: a literal or another name stays under every check.
    expect(() => checkUrlRule("http://127.0.0.1:9000/", DEV_INSECURE)).toThrow(/https/);
    expect(() => checkUrlRule("http://hooks.example.com/", DEV_INSECURE)).toThrow(/https/);
    expect(checkUrlRule("https://127.0.0.1/", DEV_INSECURE).allowLoopback).toBe(false);
  });

  it("refuses credentials in the URL", () => {
    expect(() => checkUrlRule("https://user:pw@hooks.example.com/", PRODUCTION)).toThrow(/credentials/);
  });
});

describe("resolveTarget", () => {
  const table =
    (answers: Record<string, string[]>): Resolver =>
    async (host) => {
      const list = answers[host];
      if (!list) throw new Error(`ENOTFOUND ${host}`);
      return list.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
    };
  const never: Resolver = async (host) => {
    throw new Error(`an IP literal was resolved: ${host}`);
  };

  it("connects to the first answer once every answer passed", async () => {
    const t = await resolveTarget(
      "https://hooks.example.com/x",
      PRODUCTION,
      table({ "hooks.example.com": ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"] }),
    );
    expect(t).toMatchObject({ address: "93.184.215.14", family: 4 });
    expect(t.url.hostname).toBe("hooks.example.com");
  });

  it.each([
    ["10.0.0.7"],
    ["127.0.0.1"],
    ["169.254.169.254"],
    ["::1"],
    ["fc00::1"],
    ["::ffff:127.0.0.1"],
    ["100.64.0.1"],
    ["fe80::1"],
    ["0.0.0.0"],
  ])("refuses a host with one answer %s among public ones", async (bad) => {
    const resolve = table({ "rebind.example.com": ["93.184.215.14", bad, "1.1.1.1"] });
    await expect(resolveTarget("https://rebind.example.com/", PRODUCTION, resolve)).rejects.toMatchObject({
      code: "webhook_url_refused",
    });
  });

  it.each([
    "https://127.0.0.1/",
    "https://127.0.0.1:8443/hook",
    "https://10.1.2.3/",
    "https://172.16.0.1/",
    "https://192.168.1.1/",
    "https://169.254.169.254/latest/meta-data/",
    "https://[::1]/",
    "https://[fc00::1]/",
    "https://[fe80::1]/",
    "https://[::ffff:127.0.0.1]/",
    "https://[::ffff:7f00:1]/",
    "https://[::ffff:169.254.169.254]/",
    "https://[::ffff:8.8.8.8]/",
    "https://[::8.8.8.8]/",
    "https://[::127.0.0.1]/",
    "https://2130706433/",
    "https://0177.0.0.1/",
    "https://0x7f.0.0.1/",
    "https://017700000001/",
    "https://0/",
    "https://100.64.0.1/",
  ])("refuses the IP literal %s without resolving anything", async (url) => {
    await expect(resolveTarget(url, PRODUCTION, never)).rejects.toMatchObject({
      code: "webhook_url_refused",
    });
  });

  it("takes a public IP literal as it is", async () => {
    await expect(resolveTarget("https://[2606:4700:4700::1111]/x", PRODUCTION, never)).resolves.toMatchObject(
      {
        address: "2606:4700:4700::1111",
        family: 6,
      },
    );
  });

  it("lets localhost reach loopback in development with the insecure switch, and nothing private", async () => {
    const resolve = table({ localhost: ["127.0.0.1", "::1"] });
    await expect(resolveTarget("http://localhost:9000/", DEV_INSECURE, resolve)).resolves.toMatchObject({
      address: "127.0.0.1",
    });
    await expect(
      resolveTarget("http://localhost:9000/", DEV_INSECURE, table({ localhost: ["127.0.0.1", "10.0.0.1"] })),
    ).rejects.toThrow(/private/);
    await expect(resolveTarget("https://localhost:9000/", PRODUCTION, resolve)).rejects.toThrow(/loopback/);
  });

  it("refuses a host that does not resolve", async () => {
    await expect(resolveTarget("https://nowhere.example/", PRODUCTION, table({}))).rejects.toThrow(
      /does not resolve/,
    );
  });
});
