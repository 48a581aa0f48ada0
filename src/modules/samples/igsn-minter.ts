import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ApiError } from '../../core/http/api-error';
import { AccountsService } from '../accounts/accounts.service';
import { counterOfSuffix, formatMintedSuffix, namespaceCapacity } from './igsn.service';
import { SampleWriteRepository } from './sample-write.repository';

/** The longest registry code (`IE` + 3): a code this long has no other code inside its namespace. */
const LONGEST_CODE = 5;

export interface MintOptions {
  /** Suffixes not to hand out although no sample has them yet (IGSNs supplied in the same batch). */
  avoid?: ReadonlySet<string>;
  /**
   * Skip the look for values already stored: for one sample whose insert lets a taken IGSN pass
   * (ON CONFLICT DO NOTHING) and then mints again with the look (a legacy 3-character code's).
   */
  unchecked?: boolean;
}

/** Mints IGSN suffixes (CONTRACT §2): the registry code followed by a base-36 counter. */
@Injectable()
export class IgsnMinter {
  constructor(
    private readonly sampleWriteRepository: SampleWriteRepository,
    private readonly accountsService: AccountsService,
  ) {}

  /**
   * Takes `count` new suffixes under the code from the code's sequence: no lock outlives the call,
   * so concurrent registrations (any process) never wait for each other and never receive the same
   * value. Values already taken by caller-supplied IGSNs, or listed in `avoid`, are skipped; values
   * of a transaction that rolls back become gaps. A legacy 3-character code never mints inside the
   * namespace of a longer code that begins with it (`IEA` skips `IEABC0000`…`IEABCZZZZ`).
   */
  async mint(manager: EntityManager, code: string, count: number, options: MintOptions = {}): Promise<string[]> {
    const nested = await this.nestedCodes(manager, code);
    const minted: string[] = [];
    while (minted.length < count) {
      const values = await this.sampleWriteRepository.nextCounterValues(manager, code, count - minted.length);
      if (values === undefined) throw ApiError.invalidField('registry_code', `unknown registry code ${code}`);
      if (values[values.length - 1] > namespaceCapacity(code)) throw this.exhausted(code);
      const candidates = values.map((value) => formatMintedSuffix(code, value));
      const claimed = new Set(candidates.map((candidate) => this.claimant(nested, candidate)));
      for (const other of claimed) {
        // One jump past the other code's whole namespace, rather than one nextval per value in it.
        if (other)
          await this.sampleWriteRepository.advanceCounterTo(manager, code, counterOfSuffix(code, this.lastOf(other)));
      }
      const taken = options.unchecked
        ? new Set<string>()
        : await this.sampleWriteRepository.takenIgsnsBetween(manager, candidates[0], candidates[candidates.length - 1]);
      minted.push(
        ...candidates.filter(
          (candidate) => !taken.has(candidate) && !options.avoid?.has(candidate) && !this.claimant(nested, candidate),
        ),
      );
    }
    return minted;
  }

  /**
   * Whether an insert may mint under the code by itself (SampleWriteRepository.insertOne): no other
   * code's namespace lies inside this one's, so the sequence's next value is always the code's to take.
   */
  mintsInInsert(code: string): boolean {
    return code.length >= LONGEST_CODE;
  }

  /** 409: every IGSN of the code's namespace is handed out. */
  exhausted(code: string): ApiError {
    return ApiError.conflict(`Registry code ${code} has no IGSNs left to mint.`, {
      registry_code: ['namespace exhausted'],
    });
  }

  /**
   * The longer registry code whose namespace a suffix supplied under `code` lies in, if any: a
   * caller of the legacy `IEA` may not register `IEABC0001` when `IEABC` is another code.
   */
  async namespaceClaimant(manager: EntityManager, code: string, suffix: string): Promise<string | undefined> {
    return this.claimant(await this.nestedCodes(manager, code), suffix);
  }

  private async nestedCodes(manager: EntityManager, code: string): Promise<string[]> {
    return code.length >= LONGEST_CODE ? [] : this.accountsService.codesExtending(code, manager);
  }

  private claimant(nested: string[], suffix: string): string | undefined {
    return nested.find((other) => suffix.startsWith(other));
  }

  /** The last minted-form suffix (9 characters) of a code's namespace. */
  private lastOf(code: string): string {
    return code.padEnd(9, 'Z');
  }
}
