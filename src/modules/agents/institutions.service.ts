import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { ApiError } from '../../core/http/api-error';
import { textLength } from '../../core/http/text-length';
import { MatchOptions, fieldPath } from '../vocabularies/common/create-or-match';
import { LabelledRowRepository } from '../vocabularies/common/labelled-row.repository';
import { trimToNull } from '../../core/http/trim';
import { VocabulariesService } from '../vocabularies/vocabularies.service';
import { CollectorInstitutionInputDto } from './dto/collector-input.dto';
import { InstitutionPatchDto, InstitutionWriteDto } from './dto/institution.dto';
import type { AuthenticatedUser } from '../../core/auth/authenticated-user';
import { definedOnly } from '../vocabularies/common/defined-only';
import { storedEqualsSent } from '../vocabularies/common/stored-equals-sent';
import { assertMayChangeSharedAgent } from '../vocabularies/common/agent-edit.policy';
import { AgentUsageRepository } from '../vocabularies/common/agent-usage.repository';
import { ROR } from './agent-identifier';
import { identifierTaken, inTransaction, resolveAgent } from './agent-identity';
import { Institution } from './institution.entity';
import { InstitutionRepository } from './institution.repository';

@Injectable()
export class InstitutionsService {
  constructor(
    private readonly agentUsageRepository: AgentUsageRepository,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly institutionRepository: InstitutionRepository,
    private readonly labelledRowRepository: LabelledRowRepository,
    private readonly vocabulariesService: VocabulariesService,
  ) {}

  async search(search: string | undefined, limit: number): Promise<Institution[]> {
    return this.institutionRepository.search(search, limit);
  }

  /** 404 when there is no such institution. */
  async get(id: number): Promise<Institution> {
    const [institution] = await this.load([id]);
    if (!institution) throw ApiError.notFound(`Institution ${id} not found.`);
    return institution;
  }

  /**
   * An explicit create: a new row even when another institution has the same label (departments
   * repeat); 409 when another institution already has this ROR id.
   */
  async create(input: InstitutionWriteDto, createdBy: number | null): Promise<Institution> {
    const country = await this.vocabulariesService.resolveCountry(input.country, 'country');
    const id = await inTransaction(undefined, this.dataSource, async (manager) => {
      await this.refuseTakenIdentifier(manager, input.ror, null);
      const institution = await this.institutionRepository.insert(manager, {
        label: input.label.trim(),
        altLabel: input.alt_label ?? null,
        description: input.description ?? null,
        countryId: country?.id ?? null,
        countrySubdivision: input.country_subdivision ?? null,
        city: input.city ?? null,
        ror: input.ror ?? null,
        createdBy,
      });
      return institution.id;
    });
    return this.get(id);
  }

  /**
   * PATCH /api/institutions/{id}/: the fields sent replace the stored ones. Only callers who may
   * edit the row; 409 when the new ROR id is another institution's.
   */
  async update(id: number, patch: InstitutionPatchDto, user: AuthenticatedUser): Promise<Institution> {
    const current = await this.get(id);
    await assertMayChangeSharedAgent(current, user, 'institution', () =>
      this.agentUsageRepository.usedByOthers('institution', id, user),
    );
    if (patch.label === null) throw ApiError.invalidField('label', 'must not be empty');
    const countryId = await this.vocabulariesService.countryIdPatch(patch.country);
    const label = patch.label?.trim();
    await inTransaction(undefined, this.dataSource, async (manager) => {
      if (patch.ror !== undefined) await this.refuseTakenIdentifier(manager, patch.ror, id);
      await this.institutionRepository.update(manager, id, {
        ...definedOnly({
          label,
          altLabel: patch.alt_label,
          description: patch.description,
          countrySubdivision: patch.country_subdivision,
          city: patch.city,
          ror: patch.ror,
          countryId,
        }),
        // A renamed row is no longer filed under its old name for create-or-match.
        ...(label !== undefined && label.toLowerCase() !== current.label.toLowerCase() ? { matchKey: null } : {}),
      });
    });
    return this.get(id);
  }

  /**
   * The institution of a collector. A ROR id decides: the institution with that ROR id, or a new
   * one, even when another has the same label. Without one, the label (trimmed, case-insensitive)
   * matches only when exactly one institution has it (409 when several do); none → a new one.
   * What was sent must equal what the matched record stores (blanks are filled in), else 409
   * naming the field and the stored value. Null without a label or ROR id.
   */
  async match(input: CollectorInstitutionInputDto, options: MatchOptions = {}): Promise<Institution | null> {
    const label = trimToNull(input.label);
    const ror = trimToNull(input.ror);
    if (!label && !ror) return null;
    const labelField = fieldPath(options.field, 'label');
    if (label && textLength(label) > 200) throw ApiError.invalidField(labelField, 'must be at most 200 characters');
    return inTransaction(options.manager, this.dataSource, async (manager) => {
      const country = await this.vocabulariesService.resolveCountry(
        input.country,
        fieldPath(options.field, 'country'),
        manager,
      );
      const values = { label, ror, city: trimToNull(input.city), country_id: country?.id ?? null };
      const found = await resolveAgent(this.institutionRepository, this.labelledRowRepository, manager, {
        identifier: ROR,
        value: ror,
        label,
        labelField,
        labelMissing: 'give a label: no institution has this ror',
        insertIdentified: (named) =>
          this.institutionRepository.insertIdentified(manager, {
            label: named,
            ror: ror as string,
            city: values.city,
            countryId: values.country_id,
            createdBy: options.createdBy ?? null,
          }),
        namedValues: { ...values, created_by: options.createdBy ?? null },
      });
      const id = found.id;
      if (found.created) return this.loadOne(id, manager);
      return storedEqualsSent(this.labelledRowRepository, manager, {
        table: 'institution',
        id,
        describe: (row: Institution) => `institution ${row.id} "${row.label}"`,
        load: () => this.loadOne(id, manager),
        editPath: `/api/institutions/${id}/`,
        attributes: [
          { field: labelField, column: 'label', sent: label, stored: (row) => row.label, caseInsensitive: true },
          {
            field: fieldPath(options.field, 'city'),
            column: 'city',
            sent: values.city,
            stored: (row) => row.city,
            caseInsensitive: true,
          },
          {
            field: fieldPath(options.field, 'country'),
            column: 'country_id',
            sent: values.country_id,
            sentShown: country?.label,
            stored: (row) => row.countryId,
            shown: (row) => row.country?.label ?? null,
          },
        ],
      });
    });
  }

  /** 409 when an institution other than `self` already has this ROR id. */
  private async refuseTakenIdentifier(manager: EntityManager, ror: string | null | undefined, self: number | null) {
    const given = trimToNull(ror);
    if (!given) return;
    await this.institutionRepository.lockIdentifier(manager, given);
    const other = (await this.institutionRepository.idsByIdentifier(manager, given)).find((id) => id !== self);
    if (other !== undefined) throw identifierTaken('ror', 'institution', given, other);
  }

  private async loadOne(id: number, manager: EntityManager): Promise<Institution> {
    const [institution] = await this.load([id], manager);
    return institution;
  }

  /** Institutions with what a read needs, in the order of `ids`. */
  async load(ids: number[], manager?: EntityManager): Promise<Institution[]> {
    return this.institutionRepository.load(ids, manager);
  }
}
