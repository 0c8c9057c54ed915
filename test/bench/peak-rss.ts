import { readFileSync, writeFileSync } from "node:fs";
import { median } from "./workload.ts";

/**
 * The peak resident memory of this process over a stretch of a benchmark, all threads included.
 * Linux keeps a high-water mark of the RSS (VmHWM in /proc/self/status), which writing "5" to
 * /proc/self/clear_refs resets to the current RSS. Unlike a timer that samples the RSS, it also
 * catches a peak inside a long synchronous stretch (a replay's fold), when no timer can fire.
 * Elsewhere (no /proc) both functions answer null and the figure is left out.
 */
export function resetPeakRss(): void {
  try {
    writeFileSync("/proc/self/clear_refs", "5");
  } catch {
    // No /proc, or not allowed: peakRssMiB() then reports the process's lifetime peak or nothing.
  }
}

export function peakRssMiB(): number | null {
  try {
    const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync("/proc/self/status", "utf8"));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

export const fmtMiB = (mib: number | null): string => (mib === null ? "n/a" : `${mib.toFixed(0)} MiB`);

/** The median of some runs' peaks, printed ("n/a" when none was known). */
export function fmtMedianPeak(peaks: ReadonlyArray<number | null>): string {
  const known = peaks.filter((p): p is number => p !== null);
  return fmtMiB(known.length > 0 ? median(known) : null);
}
