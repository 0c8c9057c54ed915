/**
 * Starts following a session's stream (`follow`), then lets the app open it (`opened`: show the
 * burner's address, or pay), and resolves with what the stream waited for. Followed first, as a
 * payer's page would: it sees `pending` first, and a deposit that lands at once is not waited for
 * from behind. A rejection of `opened` stops the stream and ends the flow with that error.
 */
export async function followThenOpen<T>(
  follow: (signal: AbortSignal) => Promise<T>,
  opened: () => void | Promise<void>,
  signal: AbortSignal | undefined,
): Promise<T> {
  const stop = new AbortController();
  const following = follow(signal ? AbortSignal.any([signal, stop.signal]) : stop.signal);
  following.catch(() => {}); // awaited below; until then a rejection is not unhandled
  try {
    await opened();
  } catch (err) {
    stop.abort(err);
    throw err;
  }
  return following;
}
