import { Injectable } from '@nestjs/common';

/** The time the monitor scheduler goes by: tests replace it so that due runs come without waiting. */
@Injectable()
export class MonitorClock {
  now(): number {
    return Date.now();
  }
}
