// Numbers crossing to the engine (completion heads, argument lengths) in one Uint32Array that is
// kept and reused. A typed array made for each crossing would be small enough for V8 to keep its
// elements on the JavaScript heap, and N-API then copies them out to a new buffer on every read:
// measured, that copy cost more than the crossing saved.

/** A growable list of 32-bit numbers over one reused buffer. */
export class Numbers {
  /** Over 64 bytes, so V8 keeps the elements off its heap from the start. */
  #buffer = new Uint32Array(256)
  #length = 0

  /** How many numbers are held. */
  get length(): number {
    return this.#length
  }

  /** Appends `value` (a whole number from 0 to 2^32 - 1). */
  push(value: number): void {
    if (this.#length === this.#buffer.length) {
      const grown = new Uint32Array(this.#buffer.length * 2)
      grown.set(this.#buffer)
      this.#buffer = grown
    }
    this.#buffer[this.#length++] = value
  }

  /**
   * The numbers held, as a view of the buffer, and empties the list: read the view before
   * anything is pushed again (the engine reads it within the call it is passed to).
   */
  take(): Uint32Array {
    const view = this.#buffer.subarray(0, this.#length)
    this.#length = 0
    return view
  }
}
