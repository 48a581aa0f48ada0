import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AuthenticatedUser, RequestCaller, isUncheckedCaller } from '../../core/auth/authenticated-user';
import { Clock } from '../../core/clock';
import { ApiError } from '../../core/http/api-error';
import { SampleDto } from './dto/sample.dto';
import { SampleLookup } from './dto/sample-lookup.dto';
import { IgsnService } from './igsn.service';
import { SampleAccessPolicy, SampleCaller } from './sample-access.policy';
import { SampleMapper, SampleRow, accessFacts } from './sample.mapper';
import { SampleRepository } from './sample.repository';

/**
 * Reads of single samples by IGSN or id, as the caller may see them: GET /api/samples/{igsn}/, the
 * by-IGSN lookup, the answer of a write, and the rows exports, QR codes and lineage start from.
 * Every decision is SampleAccessPolicy's; a deactivated sample is answered with its tombstone (410).
 */
@Injectable()
export class SampleReader {
  constructor(
    private readonly samplesRepository: SampleRepository,
    private readonly mapper: SampleMapper,
    private readonly policy: SampleAccessPolicy,
    private readonly igsnService: IgsnService,
    private readonly clock: Clock,
  ) {}

  /**
   * GET /api/samples/{igsn}/: the sample as the caller may see it, whether anyone may (which decides
   * how it is cached), and the caller once known; 401 for a non-public sample without a token, 404
   * without view permission. A token not checked yet (UncheckedCaller) is checked by the fetch's own
   * statement, which reads the token's pair beside the sample.
   */
  async fetch(
    igsnValue: string,
    requestCaller: RequestCaller,
  ): Promise<{ sample: SampleDto; isPublic: boolean; user: AuthenticatedUser | undefined }> {
    const { row: found, user } = await this.rowAndCaller(igsnValue, requestCaller);
    const { row, caller } = await this.visibleRow(found, user);
    const facts = accessFacts(row);
    return {
      sample: this.mapper.toDto(row, this.policy.canEdit(facts, caller)),
      isPublic: SampleAccessPolicy.isPublic(facts, this.clock.now()),
      user,
    };
  }

  /** The row of an IGSN (undefined when none), and the caller with their token checked. */
  private async rowAndCaller(
    igsnValue: string,
    caller: RequestCaller,
  ): Promise<{ row: SampleRow | undefined; user: AuthenticatedUser | undefined }> {
    const suffix = this.igsnService.parse(igsnValue);
    if (!isUncheckedCaller(caller)) {
      return { row: suffix ? await this.samplesRepository.byIgsn(suffix) : undefined, user: caller };
    }
    const found = suffix ? await this.samplesRepository.byIgsnWithState(suffix, caller.state) : undefined;
    // No row, no state: the token is checked on its own, so a revoked one gets 401, not 404.
    if (!found) return { row: undefined, user: await caller.check() };
    return { row: found.row, user: await caller.confirm(found.state) };
  }

  /** The row behind an IGSN if the caller may see it; 401/404 otherwise. Exports use it too. */
  async findVisibleRow(igsnValue: string, user: AuthenticatedUser | undefined): Promise<SampleRow> {
    const suffix = this.igsnService.parse(igsnValue);
    const row = suffix ? await this.samplesRepository.byIgsn(suffix) : undefined;
    return (await this.visibleRow(row, user)).row;
  }

  /** The row if the caller may see it, with the caller as the policy knows them; 401/404/410 otherwise. */
  private async visibleRow(
    row: SampleRow | undefined,
    user: AuthenticatedUser | undefined,
  ): Promise<{ row: SampleRow; caller: SampleCaller | undefined }> {
    if (!row) throw ApiError.notFound('Sample not found.');
    const caller = await this.policy.caller(user);
    switch (this.policy.visibility(accessFacts(row), caller, this.clock.now())) {
      case 'visible':
        return { row, caller };
      case 'needs-token':
        throw ApiError.unauthorized('This sample is not public; send a token with view permission.');
      case 'hidden':
        throw ApiError.notFound('Sample not found.');
      case 'gone':
        throw this.gone(row);
    }
  }

  /**
   * GET /api/samples/by-igsn/?igsn=…: what each IGSN (any accepted form) names for this caller, in
   * the order asked: the sample (200), 401 without a token for a sample that is not public, 403 when
   * it exists but the caller may not see it, 404 when unknown (also a sample deactivated before it
   * was ever public, to those who could not see it), 410 with a tombstone when deactivated.
   */
  async lookup(values: string[], user: AuthenticatedUser | undefined): Promise<SampleLookup[]> {
    const caller = await this.policy.caller(user);
    const suffixes = values.map((value) => this.igsnService.parse(value));
    const rows = await this.samplesRepository.byIgsns([...new Set(suffixes.filter((suffix) => suffix !== undefined))]);
    const byIgsn = new Map(rows.map((row) => [row.igsn, row]));
    const now = this.clock.now();
    return values.map((igsn, index): SampleLookup => {
      const suffix = suffixes[index];
      const row = suffix === undefined ? undefined : byIgsn.get(suffix);
      if (!row) return { igsn, status: 404, message: 'Sample not found.' };
      switch (this.policy.visibility(accessFacts(row), caller, now)) {
        case 'visible':
          return { igsn, status: 200, data: this.mapper.toDto(row, this.policy.canEdit(accessFacts(row), caller)) };
        case 'needs-token':
          return { igsn, status: 401, message: 'This sample is not public; send a token with view permission.' };
        case 'hidden':
          return row.is_deactivated
            ? { igsn, status: 404, message: 'Sample not found.' }
            : { igsn, status: 403, message: 'You may not see this sample.' };
        case 'gone':
          return { igsn, status: 410, message: this.goneMessage(row), tombstone: this.mapper.toTombstone(row) };
      }
    });
  }

  /** The sample of `id` as its JSON, with `can_edit` for the caller (the answer of a write). */
  async readForCaller(id: number, caller: SampleCaller | undefined): Promise<SampleDto> {
    const [row] = await this.samplesRepository.byIds([id]);
    return this.mapper.toDto(row, this.policy.canEdit(accessFacts(row), caller));
  }

  /** The sample an IGSN (any form) names when the caller may see it; undefined alike when hidden or missing. */
  async visibleRowByIgsn(
    value: string,
    caller: SampleCaller | undefined,
    manager?: EntityManager,
  ): Promise<SampleRow | undefined> {
    const suffix = this.igsnService.parse(value);
    const row = suffix === undefined ? undefined : await this.samplesRepository.byIgsn(suffix, manager);
    return row && this.policy.canView(accessFacts(row), caller, this.clock.now()) ? row : undefined;
  }

  private goneMessage(row: SampleRow): string {
    return `Sample ${this.igsnService.toDoi(row.igsn)} was deactivated.`;
  }

  /** 410 for a deactivated sample: its tombstone, never its fields. */
  private gone(row: SampleRow): ApiError {
    return ApiError.gone(this.goneMessage(row), { tombstone: this.mapper.toTombstone(row) });
  }
}
