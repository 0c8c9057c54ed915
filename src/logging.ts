import { pino } from "pino";

/** Structured JSON logs (pino); one child logger per role, so every line says which role wrote it. */
export type Logger = pino.Logger;

export function createLogger(level: string, role = "service"): Logger {
  return pino({ level, base: { role } });
}
