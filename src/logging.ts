import { pino } from "pino";
import pretty from "pino-pretty";

/**
 * Structured logs (pino); one child logger per role, so every line says which role wrote it. JSON
 * lines for machines (a pipe, a file, a log shipper). On a terminal (LOG_FORMAT=auto) the JSON lines
 * go to a file instead, so the terminal keeps the CLI's one line per role; errors show there too.
 */
export type Logger = pino.Logger;
export type LogFormat = "auto" | "json" | "pretty";

export interface LogOptions {
  format?: LogFormat;
  /** The file a terminal's logs go to; without it a terminal gets them made readable. */
  file?: string;
  /** Whether stdout is a terminal (process.stdout.isTTY unless a test says). */
  tty?: boolean;
}

/** Where the lines of createLogger go: stdout as JSON, stdout made readable, or the file. */
export function logSink(opts: LogOptions): "json" | "pretty" | "file" {
  const format = opts.format ?? "auto";
  if (format !== "auto") return format;
  if (!(opts.tty ?? process.stdout.isTTY)) return "json";
  return opts.file ? "file" : "pretty";
}

const readable = (destination: number) =>
  // Synchronous: the lines interleave in order with the role lines the CLI writes to stdout.
  pretty({
    colorize: true,
    sync: true,
    destination,
    ignore: "pid,hostname,role",
    messageFormat: "{role}  {msg}",
    translateTime: "SYS:HH:MM:ss.l",
  });

export function createLogger(level: string, role = "service", opts: LogOptions = {}): Logger {
  const options = { level, base: { role } };
  const sink = logSink(opts);
  if (sink === "json" || level === "silent") return pino(options);
  if (sink === "pretty") return pino(options, readable(1));
  // Synchronous appends: a process that exits (process.exit) loses no line it logged.
  const file = pino.destination({ dest: opts.file, mkdir: true, append: true, sync: true });
  return pino(
    options,
    pino.multistream([
      { level: level as pino.Level, stream: file },
      { level: "error", stream: readable(2) },
    ]),
  );
}
