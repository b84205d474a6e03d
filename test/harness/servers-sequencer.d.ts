/** Types of servers-sequencer.js (a plain CommonJS file: jest loads it before any transform). */
export interface Shard {
  seconds: number;
  paths: string[];
}
export function splitByDuration(paths: string[], count: number, durations?: Record<string, number>): Shard[];
