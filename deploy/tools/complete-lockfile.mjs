#!/usr/bin/env node
// npm 11 writes no version for platform-specific optional packages (another OS or CPU) when the
// registry it talks to does not serve them, and `npm ci` then refuses the lock file ("Missing:
// <pkg>@ from lock file"; npm/cli#9342). This records each such package with the version its
// parent asks for and the os/cpu/libc its name states, so npm ci skips it on other platforms.
// Run after `npm install` changes package-lock.json: `node deploy/tools/complete-lockfile.mjs`.
import { readFileSync, writeFileSync } from "node:fs";

const path = process.argv[2] ?? "package-lock.json";
const lock = JSON.parse(readFileSync(path, "utf8"));
const pkgs = lock.packages;
const OS = [
  "android",
  "darwin",
  "freebsd",
  "linux",
  "win32",
  "aix",
  "netbsd",
  "openbsd",
  "sunos",
  "openharmony",
];
const CPU = ["arm64", "x64", "arm", "ia32", "ppc64", "riscv64", "s390x", "loong64", "mips64el", "wasm32"];
const added = [];
for (const [key, meta] of Object.entries(pkgs)) {
  for (const [name, version] of Object.entries(meta.optionalDependencies ?? {})) {
    const nested = key ? `${key}/node_modules/${name}` : `node_modules/${name}`;
    const hoisted = `node_modules/${name}`;
    if (pkgs[nested]?.version || pkgs[hoisted]?.version) continue;
    const tokens = name.split("/").pop().split(/[-_]/);
    const os = tokens.filter((t) => OS.includes(t)).slice(0, 1);
    const cpu = tokens.filter((t) => CPU.includes(t)).slice(0, 1);
    if (name === "fsevents") os.push("darwin");
    if (os.length === 0 && cpu.length === 0) continue; // not a platform package: leave it to npm
    const entry = { version, optional: true, ...(meta.dev ? { dev: true } : {}) };
    if (os.length) entry.os = os;
    if (cpu.length) entry.cpu = cpu;
    if (tokens.includes("musl")) entry.libc = ["musl"];
    else if (tokens.includes("gnu") || tokens.includes("gnueabihf")) entry.libc = ["glibc"];
    pkgs[hoisted] = entry;
    added.push(`${name}@${version}`);
  }
}
lock.packages = Object.fromEntries(
  Object.entries(pkgs).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : a > b ? 1 : 0)),
);
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(added.length ? `recorded ${added.length}: ${added.join(", ")}` : "lock file complete");
