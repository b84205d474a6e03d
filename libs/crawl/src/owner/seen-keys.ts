/**
 * The frontier's seen-set (docs/crawl.md "Crawls past 100,000 pages"): a 64-bit fingerprint per URL key in an
 * open-addressing table of two typed arrays, instead of the keys themselves. A million keys take 16 MiB outside
 * the JavaScript heap (as strings in a Set they took about 90 MiB of it), and the table only doubles when it is
 * half full. Two different keys whose fingerprints match would make the second look known: for n keys the chance
 * that any pair does is about n² / 2⁶⁵ (3 in 100 million for a million keys); large crawlers keep their seen-sets
 * the same way.
 */
export class SeenKeys {
  private hi: Uint32Array;
  private lo: Uint32Array;
  private mask: number;
  private count = 0;

  constructor(initialCapacity = 1024) {
    let capacity = 16;
    while (capacity < initialCapacity * 2) capacity *= 2;
    this.hi = new Uint32Array(capacity);
    this.lo = new Uint32Array(capacity);
    this.mask = capacity - 1;
  }

  get size(): number {
    return this.count;
  }

  /** Bytes the table holds (for the bench's memory figures). */
  get bytes(): number {
    return this.hi.byteLength + this.lo.byteLength;
  }

  has(key: string): boolean {
    const [h, l] = fingerprint(key);
    return this.find(h, l) >= 0;
  }

  /** Adds the key; false when it (or a key with its fingerprint) was there already. */
  add(key: string): boolean {
    const [h, l] = fingerprint(key);
    if (this.find(h, l) >= 0) return false;
    if ((this.count + 1) * 2 > this.hi.length) this.grow();
    this.insert(h, l);
    this.count++;
    return true;
  }

  private find(h: number, l: number): number {
    for (let i = l & this.mask; ; i = (i + 1) & this.mask) {
      const sh = this.hi[i];
      const sl = this.lo[i];
      if (sh === 0 && sl === 0) return -1;
      if (sh === h && sl === l) return i;
    }
  }

  private insert(h: number, l: number): void {
    let i = l & this.mask;
    while (this.hi[i] !== 0 || this.lo[i] !== 0) i = (i + 1) & this.mask;
    this.hi[i] = h;
    this.lo[i] = l;
  }

  private grow(): void {
    const { hi, lo } = this;
    this.hi = new Uint32Array(hi.length * 2);
    this.lo = new Uint32Array(lo.length * 2);
    this.mask = this.hi.length - 1;
    for (let i = 0; i < hi.length; i++) if (hi[i] !== 0 || lo[i] !== 0) this.insert(hi[i], lo[i]);
  }
}

/**
 * Two independent 32-bit MurmurHash3-style hashes of the key's UTF-16 code units (different seeds), as the
 * fingerprint's high and low words; never (0, 0), the table's empty slot.
 */
export function fingerprint(key: string): [number, number] {
  let a = 0x9747b28c;
  let b = 0x5bd1e995 ^ key.length;
  for (let i = 0; i < key.length; i++) {
    const k = Math.imul(key.charCodeAt(i), 0xcc9e2d51);
    const ka = Math.imul((k << 15) | (k >>> 17), 0x1b873593);
    a ^= ka;
    a = Math.imul((a << 13) | (a >>> 19), 5) + 0xe6546b64;
    const kb = Math.imul(key.charCodeAt(i) ^ 0x85ebca6b, 0x27d4eb2f);
    b ^= (kb << 11) | (kb >>> 21);
    b = Math.imul((b << 17) | (b >>> 15), 0x165667b1) + 0x61c88647;
  }
  const h = fmix(a ^ key.length) >>> 0;
  let l = fmix(b) >>> 0;
  if (h === 0 && l === 0) l = 1;
  return [h, l];
}

function fmix(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x;
}
