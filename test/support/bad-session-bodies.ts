/**
 * A generated corpus of malformed POST /sessions bodies. Every entry must be refused by the request
 * schema alone (no signature check needed), so the unit test drives the schema with it and the
 * end-to-end test replays it over HTTP (JSON.stringify(body)) and checks nothing is created.
 * Deterministic: the same corpus on every run.
 */

export interface BadBody {
  name: string;
  body: unknown;
}

type Path = readonly string[];
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const hex = (bytes: number, pair = "ab") => `0x${pair.repeat(bytes)}`;

/** Well-formed for the schema (the signatures are not real): the base every mutation starts from. */
export function wellFormedSessionBody(
  flow: "p2p_request" | "stealth_request" = "p2p_request",
): Record<string, Json> {
  const body: Record<string, Json> = {
    burner_address: hex(20, "1A"),
    eip7702_auth: {
      address: hex(20, "2b"),
      chainId: 1,
      nonce: 0,
      r: hex(32, "3c"),
      s: hex(32, "4d"),
      yParity: 1,
    },
    destination_address: hex(20, "5e"),
    destination_chain: 8453,
    flow,
    standing_refund: {
      to: hex(20, "6f"),
      deadline: 4_102_444_800,
      signatures: { "1": hex(65, "7a"), "8453": hex(65) },
    },
  };
  if (flow === "stealth_request") body.stealth = { ephemeral_pubkey: `0x02${"8b".repeat(32)}`, view_tag: 7 };
  return body;
}

// Values no field of the schema accepts, whatever its type.
const HUGE = "a".repeat(70_000); // larger than the default 64 KiB body limit
const LONG = `0x${"a".repeat(4_998)}`; // fits the body limit, still far past any field's length
const deep = (depth: number): Json => (depth === 0 ? "x" : { a: deep(depth - 1), b: [depth] });
const JUNK: Json[] = [
  null,
  true,
  false,
  [],
  {},
  [1, "2", null],
  { a: { b: { c: [1, [2, [3]]] } } },
  deep(40),
  HUGE,
  LONG,
];

function badHex(chars: number): Json[] {
  const ok = `0x${"c".repeat(chars)}`;
  return [
    "",
    "0x",
    ok.slice(2), // no prefix
    `0X${"c".repeat(chars)}`,
    ok.slice(0, -1), // odd length
    ok.slice(0, -2), // one byte short
    `${ok}cc`, // one byte long
    `${ok.slice(0, -1)}g`, // not hex
    ` ${ok}`,
    `${ok}\n`,
    `${ok.slice(0, -1)}\u0441`, // Cyrillic look-alike
    12345,
    [ok],
    { value: ok },
    ...JUNK,
  ];
}
const BAD_ADDRESS = [...badHex(40), "vitalik.eth", "0x0", "7EcZRTvp8UDAYVfWjnc5J9xZWUdQxvUNVXmRhQ7JvgLv"];
const BAD_WORD = badHex(64);
const BAD_SIG = [...badHex(130), hex(64)]; // 64-byte compact signatures are not accepted
// Around the 33-byte form, minus the 32-byte variant (a valid ed25519 key).
const BAD_PUBKEY = [...badHex(66).filter((v) => v !== `0x${"c".repeat(64)}`), hex(31), hex(34), hex(64)];
const BAD_UINT: Json[] = [-1, 1.5, "1", "0x1", 2 ** 53, 1e300, -1e300, ...JUNK];
const BAD_POSITIVE: Json[] = [0, ...BAD_UINT];
const BAD_Y_PARITY: Json[] = [2, 27, 28, -1, 0.5, "0", ...JUNK];
const BAD_VIEW_TAG: Json[] = [256, 1000, -1, 1.5, "7", ...JUNK];
const BAD_FLOW: Json[] = [
  "",
  "P2P_REQUEST",
  "p2p",
  "p2p_request ",
  "stealth",
  "merchant",
  "p2p_request\u0000",
  1,
  ...JUNK,
];
const BAD_OBJECT: Json[] = [null, [], "object", 1, true, [{}]];
const FORBIDDEN_KEYS = ["__proto__", "constructor", "prototype"];
const UNKNOWN_KEYS = [
  "extra",
  "",
  "Burner_Address",
  "burner_address ",
  "merchant_id",
  "app_fee_bps",
  ...FORBIDDEN_KEYS,
];
const BAD_CHAIN_KEYS = [
  "0",
  "01",
  "-1",
  "1.5",
  "1e3",
  "0x1",
  " 1",
  "abc",
  "",
  "9999999999999999",
  ...FORBIDDEN_KEYS,
];

interface Mutation {
  name: string;
  path: Path;
  apply(body: Record<string, Json>): void;
}

/** Sets an own, enumerable property even for `__proto__`, so JSON.stringify sends it as a key. */
function setOwn(target: Record<string, Json>, key: string, value: Json): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function parentOf(body: Record<string, Json>, path: Path): Record<string, Json> {
  let node: Json = body;
  for (const key of path) node = (node as Record<string, Json>)[key] as Json;
  return node as Record<string, Json>;
}

const label = (v: Json): string => {
  const s = JSON.stringify(v);
  return s.length > 40 ? `${s.slice(0, 20)}...${s.slice(-12)} (${s.length} chars)` : s;
};

const setValue = (path: Path, value: Json): Mutation => ({
  name: `${path.join(".")} = ${label(value)}`,
  path,
  apply: (body) => setOwn(parentOf(body, path.slice(0, -1)), path[path.length - 1] as string, value),
});

const remove = (path: Path): Mutation => ({
  name: `${path.join(".")} missing`,
  path,
  apply: (body) => {
    delete parentOf(body, path.slice(0, -1))[path[path.length - 1] as string];
  },
});

const addKey = (objectPath: Path, key: string, value: Json): Mutation => ({
  name: `${[...objectPath, JSON.stringify(key)].join(".")} added`,
  path: [...objectPath, key],
  apply: (body) => setOwn(parentOf(body, objectPath), key, value),
});

/** Mutations that make any body invalid on their own and stay invalid whatever else changes elsewhere. */
function fieldMutations(stealth: boolean): Mutation[] {
  const out: Mutation[] = [];
  const each = (path: Path, values: Json[]) => {
    for (const v of values) out.push(setValue(path, v));
  };
  each(["burner_address"], BAD_ADDRESS);
  each(["eip7702_auth"], [...BAD_OBJECT, {}]);
  each(["eip7702_auth", "address"], BAD_ADDRESS);
  each(["eip7702_auth", "chainId"], BAD_UINT);
  each(["eip7702_auth", "nonce"], BAD_UINT);
  each(["eip7702_auth", "r"], BAD_WORD);
  each(["eip7702_auth", "s"], BAD_WORD);
  each(["eip7702_auth", "yParity"], BAD_Y_PARITY);
  each(["destination_address"], [...BAD_ADDRESS, " ", "x".repeat(129)]);
  each(["destination_chain"], BAD_POSITIVE);
  each(["flow"], BAD_FLOW);
  each(["standing_refund"], [...BAD_OBJECT, {}]);
  each(["standing_refund", "to"], BAD_ADDRESS);
  each(["standing_refund", "deadline"], BAD_POSITIVE);
  each(["standing_refund", "signatures"], [...BAD_OBJECT, {}, [hex(65)]]);
  each(["standing_refund", "signatures", "1"], BAD_SIG);
  const tooMany: Record<string, Json> = {};
  for (let c = 1; c <= 33; c++) tooMany[String(c)] = hex(65);
  out.push({
    ...setValue(["standing_refund", "signatures"], tooMany),
    name: "standing_refund.signatures: 33 chains",
  });
  for (const key of BAD_CHAIN_KEYS) out.push(addKey(["standing_refund", "signatures"], key, hex(65)));

  for (const field of ["burner_address", "eip7702_auth", "destination_address", "destination_chain"]) {
    out.push(remove([field]));
  }
  for (const field of ["address", "chainId", "nonce", "r", "s", "yParity"])
    out.push(remove(["eip7702_auth", field]));
  for (const field of ["to", "deadline", "signatures"]) out.push(remove(["standing_refund", field]));

  const objects: Path[] = [[], ["eip7702_auth"], ["standing_refund"]];
  if (stealth) {
    objects.push(["stealth"]);
    each(["stealth"], [...BAD_OBJECT, {}]);
    each(["stealth", "ephemeral_pubkey"], BAD_PUBKEY);
    each(["stealth", "view_tag"], BAD_VIEW_TAG);
    out.push(remove(["stealth", "ephemeral_pubkey"]), remove(["stealth", "view_tag"]));
  }
  for (const objectPath of objects) {
    for (const key of UNKNOWN_KEYS)
      out.push(addKey(objectPath, key, key === "constructor" ? { prototype: {} } : 1));
  }
  return out;
}

/** Wrong flow and stealth combinations: each body is fine field by field and wrong as a whole. */
function combinationCases(): BadBody[] {
  const cases: BadBody[] = [];
  const stealthless = wellFormedSessionBody("stealth_request");
  delete stealthless.stealth;
  cases.push({ name: "flow stealth_request without stealth", body: stealthless });
  const announcement = wellFormedSessionBody("stealth_request").stealth as Json;
  for (const flow of ["p2p_request", "p2p_send", "checkout", null]) {
    const body = wellFormedSessionBody();
    if (flow === null) delete body.flow;
    else body.flow = flow;
    body.stealth = announcement;
    cases.push({ name: `stealth with flow ${flow ?? "(default)"}`, body });
  }
  return cases;
}

/** Deterministic PRNG (mulberry32), so the composed cases are the same on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const overlaps = (a: Path, b: Path) => {
  const n = Math.min(a.length, b.length);
  return a.slice(0, n).every((k, i) => k === b[i]);
};

function build(base: () => Record<string, Json>, mutations: Mutation[]): BadBody {
  const body = base();
  for (const m of mutations) m.apply(body);
  return { name: mutations.map((m) => m.name).join(" & "), body };
}

export function badSessionBodies(options: { composed?: number; seed?: number } = {}): BadBody[] {
  const composed = options.composed ?? 800;
  const random = prng(options.seed ?? 7702);
  const corpus: BadBody[] = [];
  for (const top of [null, [], "", "{}", 0, 1, true, false])
    corpus.push({ name: `body ${label(top)}`, body: top });
  corpus.push({ name: "body [well-formed]", body: [wellFormedSessionBody()] });

  const p2p = fieldMutations(false);
  for (const m of p2p) corpus.push(build(() => wellFormedSessionBody(), [m]));
  const stealthOnly = fieldMutations(true).filter((m) => m.path[0] === "stealth");
  for (const m of stealthOnly) corpus.push(build(() => wellFormedSessionBody("stealth_request"), [m]));
  corpus.push(...combinationCases());

  // Two or three independent faults in one body, on paths that do not contain one another.
  const pick = () => p2p[Math.floor(random() * p2p.length)] as Mutation;
  const names = new Set(corpus.map((c) => c.name));
  for (let i = 0, added = 0; added < composed && i < composed * 10; i++) {
    const chosen: Mutation[] = [];
    const want = i % 3 === 0 ? 3 : 2;
    for (let tries = 0; chosen.length < want && tries < 50; tries++) {
      const m = pick();
      if (chosen.every((c) => !overlaps(c.path, m.path))) chosen.push(m);
    }
    const name = chosen.map((m) => m.name).join(" & ");
    if (names.has(name)) continue;
    names.add(name);
    corpus.push(build(() => wellFormedSessionBody(), chosen));
    added++;
  }
  return corpus;
}
