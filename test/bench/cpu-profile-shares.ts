/**
 * What a role's CPU profile (`node --cpu-prof`, e.g. from post-sessions.bench.ts with
 * ACTORS_NODE_ARGS) spent its busy time on, over the 10 s of it with the most kafkajs samples (the
 * run at 50 connections; start-up compiles modules and kafkajs idles). Prints the shares by package
 * and the functions with the most self time. Shares, not times: the profiler slows the process.
 *
 *   npx tsx test/bench/cpu-profile-shares.ts <file.cpuprofile> [top=20] [fromAbsoluteUs]
 *
 * `fromAbsoluteUs` (printed by a first call) puts the window of another role's profile at the same
 * moment: the profiles' clocks are the machine's monotonic clock.
 */
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const WINDOW_US = 10_000_000;
const [file, topArg = "20", fromArg] = process.argv.slice(2);
if (!file) throw new Error("usage: cpu-profile-shares.ts <file.cpuprofile> [top] [fromAbsoluteUs]");
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const frame = (id: number) => byId.get(id)?.callFrame ?? { functionName: "", url: "", lineNumber: 0 };

const times: number[] = [];
let t = 0;
for (const d of profile.timeDeltas) {
  t += d;
  times.push(t);
}
const isKafkajs = (id: number) => frame(id).url.includes("node_modules/kafkajs");
let from = fromArg === undefined ? 0 : Number(fromArg) - profile.startTime;
if (fromArg === undefined) {
  let best = 0;
  let inWindow = 0;
  let first = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    if (isKafkajs(profile.samples[i] ?? 0)) inWindow += profile.timeDeltas[i] ?? 0;
    while ((times[i] ?? 0) - (times[first] ?? 0) > WINDOW_US) {
      if (isKafkajs(profile.samples[first] ?? 0)) inWindow -= profile.timeDeltas[first] ?? 0;
      first++;
    }
    if (inWindow > best) {
      best = inWindow;
      from = times[first] ?? 0;
    }
  }
}

/** A package, a folder of src/, a node: module, or V8's own (GC, idle, program). */
function groupOf(f: ProfileNode["callFrame"]): string {
  if (f.url === "") return f.functionName.startsWith("(") ? f.functionName : "native";
  const nm = f.url.lastIndexOf("node_modules/");
  if (nm >= 0) {
    const parts = f.url.slice(nm + "node_modules/".length).split("/");
    return (parts[0]?.startsWith("@") ? parts.slice(0, 2) : parts.slice(0, 1)).join("/");
  }
  const src = f.url.lastIndexOf("/src/");
  if (src >= 0) return `src/${f.url.slice(src + 5).split("/")[0]}`;
  if (f.url.startsWith("node:")) return f.url.split("/")[0] ?? f.url;
  return "other";
}

const byGroup = new Map<string, number>();
const byFunction = new Map<string, number>();
let busy = 0;
for (let i = 0; i < profile.samples.length; i++) {
  const at = times[i] ?? 0;
  if (at < from || at > from + WINDOW_US) continue;
  const f = frame(profile.samples[i] ?? 0);
  if (f.functionName === "(idle)") continue;
  const us = profile.timeDeltas[i] ?? 0;
  busy += us;
  const group = groupOf(f);
  byGroup.set(group, (byGroup.get(group) ?? 0) + us);
  const name = `${f.functionName || "(anonymous)"} ${group} ${f.url.split("/").pop()}:${f.lineNumber}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + us);
}
const share = (us: number) => `${((100 * us) / Math.max(1, busy)).toFixed(1).padStart(5)}%`;
const top = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n);
console.log(
  `window from ${(from / 1e6).toFixed(1)} s (fromAbsoluteUs ${Math.round(profile.startTime + from)}), busy ${(busy / 1e6).toFixed(2)} s of ${WINDOW_US / 1e6} s`,
);
console.log("by package or folder:");
for (const [group, us] of top(byGroup, 15)) console.log(`  ${share(us)}  ${group}`);
console.log("functions by self time:");
for (const [name, us] of top(byFunction, Number(topArg))) console.log(`  ${share(us)}  ${name}`);
