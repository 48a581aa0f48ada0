import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ApiError } from '../../core/http/api-error';
import { formatMintedSuffix, namespaceCapacity } from './igsn.service';
import { SampleRepository } from './sample.repository';

/** Mints IGSN suffixes (CONTRACT §2): the registry code followed by a base-36 counter. */
@Injectable()
export class IgsnMinter {
  constructor(private readonly samples: SampleRepository) {}

  /**
   * Takes `count` new suffixes under the code from the code's sequence: no lock outlives the call,
   * so concurrent registrations (any process) never wait for each other and never receive the same
   * value. Values already taken by caller-supplied IGSNs are skipped; values of a transaction that
   * rolls back become gaps.
   */
  async mint(manager: EntityManager, code: string, count: number): Promise<string[]> {
    const minted: string[] = [];
    while (minted.length < count) {
      const values = await this.samples.nextCounterValues(manager, code, count - minted.length);
      if (values === undefined) throw ApiError.invalidField('registry_code', `unknown registry code ${code}`);
      if (values[values.length - 1] > namespaceCapacity(code)) {
        throw ApiError.conflict(`Registry code ${code} has no IGSNs left to mint.`, {
          registry_code: ['namespace exhausted'],
        });
      }
      const candidates = values.map((value) => formatMintedSuffix(code, value));
      const taken = await this.samples.takenIgsnsBetween(manager, candidates[0], candidates[candidates.length - 1]);
      minted.push(...candidates.filter((candidate) => !taken.has(candidate)));
    }
    return minted;
  }
}
