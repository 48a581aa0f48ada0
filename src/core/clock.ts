/** The time source for anything that expires (tokens, embargoes, exports); tests substitute their own. */
export abstract class Clock {
  abstract now(): Date;
}

export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}
