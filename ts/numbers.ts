// Numbers crossing to the engine (completion heads and clock readings, argument lengths) in one
// typed array that is kept and reused. A typed array made for each crossing would be small enough
// for V8 to keep its elements on the JavaScript heap, and N-API then copies them out to a new
// buffer on every read: measured, that copy cost more than the crossing saved.

/** The typed arrays that cross: 32-bit whole numbers, or doubles. */
type NumberArray = Uint32Array | Float64Array

/** A growable list of numbers over one reused buffer of type `T`. */
export class Numbers<T extends NumberArray = Uint32Array> {
  #make: (length: number) => T
  /** Over 64 bytes, so V8 keeps the elements off its heap from the start. */
  #buffer: T
  #length = 0

  /** `make` makes the buffer (a `Uint32Array` by default). */
  constructor(make: (length: number) => T = (length) => new Uint32Array(length) as T) {
    this.#make = make
    this.#buffer = make(256)
  }

  /** How many numbers are held. */
  get length(): number {
    return this.#length
  }

  /** Appends `value` (for a `Uint32Array`, a whole number from 0 to 2^32 - 1). */
  push(value: number): void {
    if (this.#length === this.#buffer.length) {
      const grown = this.#make(this.#buffer.length * 2)
      grown.set(this.#buffer)
      this.#buffer = grown
    }
    this.#buffer[this.#length++] = value
  }

  /**
   * The numbers held, as a view of the buffer, and empties the list: read the view before
   * anything is pushed again (the engine reads it within the call it is passed to).
   */
  take(): T {
    const view = this.#buffer.subarray(0, this.#length) as T
    this.#length = 0
    return view
  }
}
