// Helpers shared by the local Kafka and Cassandra launchers: folders, pid files,
// detached JVM processes, Maven-resolved classpaths and polling.
import { execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { writeFile } from "node:fs/promises";
import { connect } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export type ServerName = "kafka" | "cassandra";
export type Log = (line: string) => void;

const here = dirname(fileURLToPath(import.meta.url));

export const paths = (root: string) => ({
  cache: join(root, "cache"),
  run: join(root, "run"),
  logs: join(root, "logs"),
  pidFile: (name: ServerName) => join(root, "run", `${name}.pid`),
  logFile: (name: ServerName) => join(root, "logs", `${name}.log`),
  lib: (name: ServerName) => join(root, "cache", name, "lib"),
  home: (name: ServerName) => join(root, name),
});

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export const javaBin = (): string =>
  process.env.JAVA_HOME ? join(process.env.JAVA_HOME, "bin", "java") : "java";

export function readPid(root: string, name: ServerName): number | undefined {
  const file = paths(root).pidFile(name);
  if (!existsSync(file)) return undefined;
  const pid = Number.parseInt(readFileSync(file, "utf8").trim(), 10);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM means the pid exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

// Main classes, to tell our JVM from an unrelated process that reused a stale pid.
export const mainClass: Record<ServerName, string> = {
  kafka: "kafka.Kafka",
  cassandra: "org.apache.cassandra.service.CassandraDaemon",
};

function runsMainClass(pid: number, name: ServerName): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").includes(mainClass[name]);
  } catch {
    // No /proc (not Linux): trust the pid file.
    return !existsSync("/proc/self");
  }
}

/** Pid of our server if its pid file points at a live process running that server. */
export function runningPid(root: string, name: ServerName): number | undefined {
  const pid = readPid(root, name);
  return pid !== undefined && isAlive(pid) && runsMainClass(pid, name) ? pid : undefined;
}

export function isPortOpen(port: number, host = "127.0.0.1", timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host });
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

/**
 * Starts a process that outlives this node process: own process group, output
 * appended to .local/logs/<name>.log, pid in .local/run/<name>.pid.
 */
export function spawnDetached(
  root: string,
  name: ServerName,
  command: string,
  args: readonly string[],
  cwd: string,
): number {
  const p = paths(root);
  mkdirSync(p.run, { recursive: true });
  mkdirSync(p.logs, { recursive: true });
  const fd = openSync(p.logFile(name), "a");
  writeFileSync(fd, `\n=== ${new Date().toISOString()} starting ${name}: ${command} ${args.join(" ")}\n`);
  try {
    const child = spawn(command, args, { cwd, detached: true, stdio: ["ignore", fd, fd] });
    if (child.pid === undefined) throw new Error(`could not spawn ${command} for ${name}`);
    child.unref();
    writeFileSync(p.pidFile(name), `${child.pid}\n`);
    return child.pid;
  } finally {
    closeSync(fd);
  }
}

/** SIGTERM, then SIGKILL after timeoutMs; resolves once the process is gone. Returns whether one was running. */
export async function stopProcess(root: string, name: ServerName, timeoutMs = 30_000): Promise<boolean> {
  const pid = runningPid(root, name);
  const pidFile = paths(root).pidFile(name);
  if (pid === undefined) {
    rmSync(pidFile, { force: true });
    return false;
  }
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(pid, sig);
    } catch {
      // Already gone.
    }
  };
  const waitGone = async (ms: number) => {
    const until = Date.now() + ms;
    while (isAlive(pid) && Date.now() < until) await sleep(100);
    return !isAlive(pid);
  };
  signal("SIGTERM");
  if (!(await waitGone(timeoutMs))) {
    signal("SIGKILL");
    if (!(await waitGone(10_000))) throw new Error(`${name} (pid ${pid}) did not exit after SIGKILL`);
  }
  rmSync(pidFile, { force: true });
  return true;
}

export const stopKafka = (root: string) => stopProcess(root, "kafka");
// Cassandra flushes memtables on SIGTERM; give it longer before killing.
export const stopCassandra = (root: string) => stopProcess(root, "cassandra", 60_000);

/**
 * Serialises start-ups of one server across node processes (say `npm run stack` and a test run),
 * so two callers never both spawn a JVM and overwrite each other's pid file.
 */
export async function withLock<T>(root: string, name: ServerName, fn: () => Promise<T>): Promise<T> {
  const dir = paths(root).run;
  const file = join(dir, `${name}.lock`);
  mkdirSync(dir, { recursive: true });
  const deadline = Date.now() + 600_000;
  for (;;) {
    try {
      writeFileSync(file, `${process.pid}\n`, { flag: "wx" });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const holder = Number.parseInt(readFileSync(file, "utf8"), 10);
      // A lock left by a crashed caller is taken over.
      if (!Number.isInteger(holder) || !isAlive(holder)) {
        rmSync(file, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`${name}: start-up lock ${file} held by pid ${holder}`);
      await sleep(250);
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(file, { force: true });
  }
}

/** Last lines of a server's log, to put in error messages. */
export function logTail(root: string, name: ServerName, lines = 30): string {
  const file = paths(root).logFile(name);
  if (!existsSync(file)) return "(no log)";
  return readFileSync(file, "utf8").split("\n").slice(-lines).join("\n");
}

/**
 * Resolves deploy/local/<name>/pom.xml's dependencies into .local/cache/<name>/lib once.
 * The marker holds the pom's hash, so editing a version re-resolves and nothing else calls Maven.
 */
export async function ensureLib(root: string, name: ServerName, log: Log): Promise<string> {
  const pom = join(here, name, "pom.xml");
  const lib = paths(root).lib(name);
  const marker = join(lib, ".resolved");
  const hash = createHash("sha256").update(readFileSync(pom)).digest("hex");
  if (existsSync(marker) && readFileSync(marker, "utf8").trim() === hash) return lib;

  // Resolve into a scratch folder and rename, so an interrupted run never leaves a half-filled lib.
  const scratch = `${lib}.tmp-${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(dirname(lib), { recursive: true });
  log(`${name}: resolving jars with Maven (${pom})`);
  const started = Date.now();
  await new Promise<void>((resolve, reject) => {
    execFile(
      "mvn",
      ["-q", "-B", "-f", pom, "dependency:copy-dependencies", `-DoutputDirectory=${scratch}`],
      { maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) =>
        err ? reject(new Error(`mvn failed for ${name}: ${err.message}\n${stdout}${stderr}`)) : resolve(),
    );
  });
  writeFileSync(join(scratch, ".resolved"), `${hash}\n`);
  rmSync(lib, { recursive: true, force: true });
  renameSync(scratch, lib);
  log(`${name}: jars ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return lib;
}

/** Polls `attempt` until it resolves, `abort` returns a reason, or the deadline passes. */
export async function retryUntil<T>(
  what: string,
  timeoutMs: number,
  attempt: () => Promise<T>,
  abort: () => string | undefined = () => undefined,
  intervalMs = 1000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      return await attempt();
    } catch (err) {
      lastError = err;
    }
    const reason = abort();
    if (reason !== undefined) throw new Error(`${what}: ${reason}`);
    if (Date.now() >= deadline) {
      const detail = lastError instanceof Error ? lastError.message : String(lastError);
      throw new Error(`${what}: gave up after ${Math.round(timeoutMs / 1000)} s (last error: ${detail})`);
    }
    await sleep(intervalMs);
  }
}

/**
 * Starts a TypeScript server of the stack (the attester, the provider servers) detached, so it outlives
 * whoever started it: output appended to `files.log`, pid to `files.pid`, what it was started with
 * (`config`) to `files.config`; resolves once `answers()` says it serves, throws after `timeoutMs`.
 */
export async function startScriptServer(opts: {
  name: string;
  script: string;
  env: Record<string, string>;
  files: { log: string; pid: string; config: string };
  config: string;
  answers: () => Promise<boolean>;
  timeoutMs: number;
}): Promise<void> {
  const fd = openSync(opts.files.log, "a");
  try {
    const child = spawn(process.execPath, ["--import", "tsx", opts.script], {
      detached: true,
      stdio: ["ignore", fd, fd],
      env: { ...process.env, ...opts.env },
    });
    child.unref();
    await writeFile(opts.files.pid, `${child.pid}\n`);
    await writeFile(opts.files.config, opts.config);
  } finally {
    closeSync(fd);
  }
  const deadline = Date.now() + opts.timeoutMs;
  while (!(await opts.answers())) {
    if (Date.now() > deadline) throw new Error(`${opts.name} did not come up; see ${opts.files.log}`);
    await sleep(100);
  }
}
