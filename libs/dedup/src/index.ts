export { DuplicateIndex, type DedupeCheck, type DuplicateVerdict, type IndexedJob } from './duplicate-index';
export { BANDS, fingerprintOf, MINHASH_SIZE, NEAR_SIMILARITY, similarity, wordsOf, type Fingerprint } from './fingerprint';
export { textHash } from './text-hash';
