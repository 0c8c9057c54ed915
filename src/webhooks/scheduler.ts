/**
 * Runs `scan` every `pollMs`, and earlier when woken for a known due time (a retry this process
 * scheduled): retries fire on time without polling fast, and rows another process left behind (it
 * died, or was stopped) are found by the poll. The state is all in the ledger, so a restarted
 * process starts with a scan and resumes where the last one stopped. Scans never overlap.
 */
export function createRetryScheduler(opts: {
  pollMs: number;
  scan: () => Promise<void>;
  onError: (err: unknown) => void;
}) {
  let timer: NodeJS.Timeout | undefined;
  let nextAt = Number.POSITIVE_INFINITY;
  let scanning = false;
  let rescan = false;
  let stopped = false;

  const wakeAt = (at: number) => {
    if (stopped || at >= nextAt) return;
    nextAt = at;
    clearTimeout(timer);
    timer = setTimeout(tick, Math.max(0, at - Date.now()));
  };

  async function tick(): Promise<void> {
    nextAt = Number.POSITIVE_INFINITY;
    if (scanning) {
      rescan = true;
      return;
    }
    scanning = true;
    try {
      await opts.scan();
    } catch (err) {
      opts.onError(err);
    } finally {
      scanning = false;
    }
    if (stopped) return;
    const again = rescan;
    rescan = false;
    wakeAt(again ? Date.now() : Date.now() + opts.pollMs);
  }

  return {
    /** Scans at once (a fresh start), then every pollMs. */
    start: () => wakeAt(Date.now()),
    wakeAt,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
