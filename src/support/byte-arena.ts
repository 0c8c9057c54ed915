/**
 * An append-only store of many small byte strings in a few large buffers, addressed by number.
 *
 * Why: a replay must hold every record of a journal until it has them all, and a million small
 * JavaScript objects that survive are what the garbage collector spends its time copying; the same
 * bytes in a few large buffers outside the heap cost it nothing. Positions are plain numbers, so the
 * caller's index of them (arrays of numbers) holds no objects either.
 */
export class ByteArena {
  private readonly chunks: Buffer[] = [];
  private current: Buffer | undefined;
  private used = 0;

  /** `chunkBytes` bounds the waste at the end of each chunk; a larger record gets a chunk of its own. */
  constructor(private readonly chunkBytes = 16 * 1024 * 1024) {}

  /** Copies `bytes` in; answers the position to read them back with `view(position, bytes.length)`. */
  append(bytes: Uint8Array): number {
    if (!this.current || this.used + bytes.length > this.current.length) {
      // Never zero-filled: every byte handed out again was written by append first.
      this.current = Buffer.allocUnsafeSlow(Math.max(this.chunkBytes, bytes.length));
      this.chunks.push(this.current);
      this.used = 0;
    }
    this.current.set(bytes, this.used);
    const position = (this.chunks.length - 1) * this.chunkBytes + this.used;
    this.used += bytes.length;
    return position;
  }

  /** The bytes appended at `position` (a view, not a copy: valid while the arena lives). */
  view(position: number, length: number): Buffer {
    const chunk = this.chunks[Math.floor(position / this.chunkBytes)];
    const at = position % this.chunkBytes;
    if (!chunk || at + length > chunk.length) throw new RangeError(`no ${length} bytes at ${position}`);
    return chunk.subarray(at, at + length);
  }

  /** Bytes reserved (the chunks' sizes). */
  get reservedBytes(): number {
    return this.chunks.reduce((n, c) => n + c.length, 0);
  }
}
