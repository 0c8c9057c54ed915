import { pino } from "pino";
import pretty from "pino-pretty";

/**
 * Structured logs (pino); one child logger per role, so every line says which role wrote it. JSON
 * lines for machines (a pipe, a file, a log shipper); on a terminal the same lines made readable.
 */
export type Logger = pino.Logger;

export function createLogger(level: string, role = "service"): Logger {
  const options = { level, base: { role } };
  if (!process.stdout.isTTY) return pino(options);
  // Synchronous: the lines interleave in order with the role lines the CLI writes to stdout.
  return pino(
    options,
    pretty({
      colorize: true,
      sync: true,
      ignore: "pid,hostname,role",
      messageFormat: "{role}  {msg}",
      translateTime: "SYS:HH:MM:ss.l",
    }),
  );
}
