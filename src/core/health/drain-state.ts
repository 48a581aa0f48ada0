import { Injectable } from '@nestjs/common';

/**
 * Whether this API process is shutting down. From the moment a deploy's SIGTERM arrives the
 * readiness check answers 503 (the load balancer stops sending new traffic) while the process
 * keeps serving what still arrives; only later does it stop accepting connections.
 */
@Injectable()
export class DrainState {
  private since?: Date;

  get draining(): boolean {
    return this.since !== undefined;
  }

  start(): void {
    this.since ??= new Date();
  }
}
