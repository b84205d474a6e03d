/**
 * The similarity fingerprint of a page's text (docs/dedup.md "The fingerprint"): a MinHash signature of the page's word
 * 3-shingles, 64 minima of differently seeded hashes. The share of equal minima of two pages estimates the Jaccard
 * similarity of their shingle sets; a page is a near-duplicate of another when it is at least NEAR_SIMILARITY.
 *
 * Why MinHash and not SimHash: a 64-bit SimHash merges templated pages. On the SWDE book pages, pages of one shop whose
 * shingle sets are only 40 % alike are 2-3 bits apart, as close as copies with a changed date. A MinHash's estimate
 * keeps them apart (at most 0.48 against ≥ 0.85), and banded (LSH: 8 bands of 8 minima) it finds its candidates with one
 * query per page: pages at 0.95 share a band with probability 0.9998, pages of one template at 0.4 with 0.005.
 *
 * Why written here: the npm packages (simhash-js: 32 bits over character shingles, one release; minhash: a playground;
 * bloom-filters' MinHash: number sets only, eight dependencies, no banding) fit neither the word shingles nor the
 * compact stored signature, and the whole of it is these few lines.
 */

/** Words per shingle. */
export const SHINGLE_WORDS = 3;
/** MinHash minima per page (the similarity's resolution is 1/64). */
export const MINHASH_SIZE = 64;
/** LSH bands, each BAND_ROWS minima: a page is compared with the earlier pages that share one of its bands. */
export const BANDS = 8;
export const BAND_ROWS = MINHASH_SIZE / BANDS;
/**
 * The least similarity (estimated Jaccard similarity of the shingle sets) of a near-duplicate. Pages of one template
 * with different values stay far below it (SWDE book pages: at most 0.48), copies with a changed date, a session line
 * or a parameter far above (≥ 0.86 at the 1st percentile of the benchmark's variants, median 0.98).
 */
export const NEAR_SIMILARITY = 0.85;
/** Pages with fewer words than this have no fingerprint: too little text to call two pages near-duplicates. */
export const MIN_WORDS = 20;

/** A page's fingerprint: MINHASH_SIZE minima, each its low 16 bits as 4 hex characters (256 characters). */
export type Fingerprint = string;

/** Words of a text: runs of letters or digits, lower-cased (NFKC first, so compatibility forms are one word). */
export function wordsOf(text: string): string[] {
  return (
    text
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{M}]+|\p{N}+/gu) ?? []
  );
}

/** FNV-1a (32 bits) of a word. */
function wordHash(word: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) {
    h ^= word.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** MurmurHash3's finaliser: every input bit reaches every output bit. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** MINHASH_SIZE fixed seeds (derived, so every process and version computes the same signature). */
const SEEDS = Uint32Array.from({ length: MINHASH_SIZE }, (_, k) => mix(Math.imul(0x9e3779b9, k + 1) >>> 0));

/** The MinHash of a text's word 3-shingles, or null when the text has fewer than MIN_WORDS words. */
export function fingerprintOf(text: string): Fingerprint | null {
  const words = wordsOf(text);
  if (words.length < MIN_WORDS) return null;
  const hashes = words.map(wordHash);
  const minima = new Uint32Array(MINHASH_SIZE).fill(0xffffffff);
  for (let i = 0; i + SHINGLE_WORDS <= hashes.length; i++) {
    let shingle = 0x9747b28c;
    for (let j = 0; j < SHINGLE_WORDS; j++) shingle = mix(shingle ^ hashes[i + j]);
    for (let k = 0; k < MINHASH_SIZE; k++) {
      const h = mix(shingle ^ SEEDS[k]);
      if (h < minima[k]) minima[k] = h;
    }
  }
  let signature = '';
  for (const m of minima) signature += (m & 0xffff).toString(16).padStart(4, '0');
  return signature;
}

/** The share of equal minima: an estimate of the Jaccard similarity of the two pages' shingle sets (1: the same). */
export function similarity(a: Fingerprint, b: Fingerprint): number {
  let same = 0;
  for (let k = 0; k < MINHASH_SIZE * 4; k += 4) if (a.slice(k, k + 4) === b.slice(k, k + 4)) same++;
  return same / MINHASH_SIZE;
}

/** The fingerprint's LSH bands (`<band>:<its minima>`): near-duplicates share at least one, almost surely. */
export function bandsOf(fp: Fingerprint): string[] {
  const width = BAND_ROWS * 4;
  return Array.from({ length: BANDS }, (_, i) => `${i}:${fp.slice(i * width, (i + 1) * width)}`);
}
