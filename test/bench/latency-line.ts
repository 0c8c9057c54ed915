/** Prints one latency figure: count, p50, p99 and max (nearest rank), in whole ms. */
export function printLatency(name: string, ms: readonly number[]): void {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number) => (s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0).toFixed(0);
  console.log(`${name.padEnd(52)} n=${s.length} p50=${at(0.5)} ms p99=${at(0.99)} ms max=${at(1)} ms`);
}
