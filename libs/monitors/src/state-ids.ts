import { createHash } from 'node:crypto';

export const hashOf = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 32);
export const pageStateId = (monitorId: string, url: string) => `${monitorId}:${hashOf(url)}`;
export const itemStateId = (monitorId: string, unitId: string) => `${monitorId}:${hashOf(unitId)}`;
export const observationId = (jobId: string, url: string) => `${jobId}:${hashOf(url)}`;
