import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Sql } from '../../core/database/sql';
import { SqlLookup } from '../../core/database/sql-lookup';
import { ApiError } from '../../core/http/api-error';
import { textLength } from '../../core/http/text-length';
import { MatchOptions, fieldPath } from '../vocabularies/common/create-or-match';
import { LabelledRowRepository } from '../vocabularies/common/labelled-row.repository';
import { trimToNull } from '../../core/http/trim';
import { VocabulariesService } from '../vocabularies/vocabularies.service';
import { CollectorIndividualInputDto } from './dto/collector-input.dto';
import { IndividualPatchDto, IndividualWriteDto } from './dto/individual.dto';
import type { AuthenticatedUser } from '../../core/auth/authenticated-user';
import { definedOnly } from '../vocabularies/common/defined-only';
import { SentAttribute, storedEqualsSent, storesAllSent } from '../vocabularies/common/stored-equals-sent';
import { assertMayChangeSharedAgent } from '../vocabularies/common/agent-edit.policy';
import { AgentUsageRepository } from '../vocabularies/common/agent-usage.repository';
import { ORCID } from './agent-identifier';
import { identifierTaken, inTransaction, resolveAgent } from './agent-identity';
import { Individual } from './individual.entity';
import { IndividualRepository } from './individual.repository';

/** The label of a person: as given, else "fname lname" (cut to the column's 200 characters). */
export function individualLabel(input: {
  label?: string | null;
  fname?: string | null;
  lname?: string | null;
}): string | null {
  const label = trimToNull(input.label);
  if (label) return label;
  const name = [trimToNull(input.fname), trimToNull(input.lname)].filter(Boolean).join(' ');
  return name ? name.slice(0, 200) : null;
}

/** An individual row as a statement answers it (AgentRepository.candidatesSql). */
type StoredIndividual = { id: number; label: string | null; fname: string | null; lname: string | null; also: unknown };

/** The names a collector's individual sends, as attributes a matched row must store (storedEqualsSent). */
function nameAttributes<Row extends { label: string | null; fname: string | null; lname: string | null }>(
  input: CollectorIndividualInputDto,
  field: string | undefined,
): SentAttribute<Row>[] {
  const sent = { label: individualLabel(input), fname: trimToNull(input.fname), lname: trimToNull(input.lname) };
  return (['label', 'fname', 'lname'] as const).map((name) => ({
    field: fieldPath(field, name),
    column: name,
    sent: sent[name],
    stored: (row: Row) => row[name],
    caseInsensitive: true,
  }));
}

@Injectable()
export class IndividualsService {
  constructor(
    private readonly agentUsageRepository: AgentUsageRepository,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly individualRepository: IndividualRepository,
    private readonly labelledRowRepository: LabelledRowRepository,
    private readonly vocabulariesService: VocabulariesService,
  ) {}

  async search(search: string | undefined, limit: number): Promise<Individual[]> {
    return this.individualRepository.search(search, limit);
  }

  /** 404 when there is no such individual. */
  async get(id: number): Promise<Individual> {
    const [individual] = await this.load([id]);
    if (!individual) throw ApiError.notFound(`Individual ${id} not found.`);
    return individual;
  }

  /**
   * An explicit create: a new row even when someone else has the same name; 409 when another
   * individual already has this identifier (ORCID).
   */
  async create(input: IndividualWriteDto, createdBy: number | null): Promise<Individual> {
    const label = individualLabel(input);
    if (!label) throw ApiError.invalidField('label', 'give a label, or fname and lname');
    const country = await this.vocabulariesService.resolveCountry(input.country, 'country');
    const id = await inTransaction(undefined, this.dataSource, async (manager) => {
      await this.refuseTakenIdentifier(manager, input.individual_uri, null);
      const individual = await this.individualRepository.insert(manager, {
        label,
        fname: input.fname ?? null,
        lname: input.lname ?? null,
        altLabel: input.alt_label ?? null,
        description: input.description ?? null,
        address: input.address ?? null,
        email: input.email ?? null,
        phone: input.phone ?? null,
        fax: input.fax ?? null,
        individualUri: input.individual_uri ?? null,
        institutionDetail: input.institution_detail ?? null,
        countryId: country?.id ?? null,
        createdBy,
      });
      return individual.id;
    });
    return this.get(id);
  }

  /**
   * PATCH /api/individuals/{id}/: the fields sent replace the stored ones. Only callers who may edit
   * the row (assertMayChangeSharedAgent: staff, or its creator while no other owner's sample names it);
   * 409 when the new identifier is another individual's.
   */
  async update(id: number, patch: IndividualPatchDto, user: AuthenticatedUser): Promise<Individual> {
    const current = await this.get(id);
    await assertMayChangeSharedAgent(current, user, 'individual', () =>
      this.agentUsageRepository.usedByOthers('individual', id, user),
    );
    const fname = patch.fname !== undefined ? patch.fname : current.fname;
    const lname = patch.lname !== undefined ? patch.lname : current.lname;
    const label =
      patch.label !== undefined || patch.fname !== undefined || patch.lname !== undefined
        ? individualLabel({ label: patch.label !== undefined ? patch.label : current.label, fname, lname })
        : current.label;
    if (!label) throw ApiError.invalidField('label', 'give a label, or fname and lname');
    const countryId = await this.vocabulariesService.countryIdPatch(patch.country);
    await inTransaction(undefined, this.dataSource, async (manager) => {
      if (patch.individual_uri !== undefined) await this.refuseTakenIdentifier(manager, patch.individual_uri, id);
      await this.individualRepository.update(manager, id, {
        label,
        fname,
        lname,
        ...definedOnly({
          altLabel: patch.alt_label,
          description: patch.description,
          address: patch.address,
          email: patch.email,
          phone: patch.phone,
          fax: patch.fax,
          individualUri: patch.individual_uri,
          institutionDetail: patch.institution_detail,
          countryId,
        }),
        // A renamed row is no longer filed under its old name for create-or-match.
        ...(label.toLowerCase() !== current.label?.toLowerCase() ? { matchKey: null } : {}),
      });
    });
    return this.get(id);
  }

  /**
   * The person of a collector. An identifier (`individual_uri`, an ORCID) decides: the individual
   * with that identifier, or a new one, even when someone else has the same name. Without one, the
   * name (label, or "fname lname"; trimmed, case-insensitive) matches only when exactly one
   * individual has it (409 when several do); none → a new one. What was sent must equal what the
   * matched record stores (blanks are filled in), else 409 naming the field and the stored value.
   * Null when the input names nobody.
   */
  async match(input: CollectorIndividualInputDto, options: MatchOptions = {}): Promise<Individual | null> {
    const label = individualLabel(input);
    const uri = trimToNull(input.individual_uri);
    if (!label && !uri) return null;
    const labelField = fieldPath(options.field, 'label');
    if (label && textLength(label) > 200) throw ApiError.invalidField(labelField, 'must be at most 200 characters');
    return inTransaction(options.manager, this.dataSource, async (manager) => {
      const found = await resolveAgent(this.individualRepository, this.labelledRowRepository, manager, {
        identifier: ORCID,
        value: uri,
        label,
        labelField,
        labelMissing: 'give a label, or fname and lname: no individual has this individual_uri',
        insertIdentified: (named) =>
          this.individualRepository.insertIdentified(manager, {
            label: named,
            fname: trimToNull(input.fname),
            lname: trimToNull(input.lname),
            uri: uri as string,
            createdBy: options.createdBy ?? null,
          }),
        namedValues: {
          label,
          fname: trimToNull(input.fname),
          lname: trimToNull(input.lname),
          created_by: options.createdBy ?? null,
        },
      });
      const id = found.id;
      if (found.created) return this.loadOne(id, manager);
      return storedEqualsSent(this.labelledRowRepository, manager, {
        table: 'individual',
        id,
        describe: (row: Individual) => `individual ${row.id} "${row.label ?? ''}"`,
        load: () => this.loadOne(id, manager),
        editPath: `/api/individuals/${id}/`,
        attributes: nameAttributes<Individual>(input, options.field),
      });
    });
  }

  /**
   * The individual match() would settle on without writing anything, as a lookup a statement asks
   * beside others: its id, and the answer of `also` (an SQL expression of the individual's id), when
   * the identifier sent finds one, or else the name finds exactly one, and it stores every name sent.
   * Undefined (as a lookup, or as its answer) when match() must run: nobody named, nobody found, a
   * name several have, a blank to fill in, a difference to refuse.
   */
  knownLookup<T>(
    input: CollectorIndividualInputDto,
    also: { sql: (id: Sql) => Sql; read: (answer: unknown) => T | undefined },
  ): SqlLookup<{ id: number; also: T }> | undefined {
    const label = individualLabel(input);
    const uri = trimToNull(input.individual_uri);
    if ((!label && !uri) || (label && textLength(label) > 200)) return undefined;
    const attributes = nameAttributes<StoredIndividual>(input, undefined);
    return {
      expression: this.individualRepository.candidatesSql(uri, label, also.sql),
      read: (answer) => {
        const rows = (answer ?? []) as StoredIndividual[];
        // As resolveAgent: an identifier takes the oldest row that has it; a name only a row it alone names.
        const row = uri || rows.length === 1 ? rows[0] : undefined;
        if (!row || !storesAllSent(row, attributes)) return undefined;
        const value = also.read(row.also);
        return value === undefined ? undefined : { id: row.id, also: value };
      },
    };
  }

  /** 409 when an individual other than `self` already has this identifier. */
  private async refuseTakenIdentifier(manager: EntityManager, uri: string | null | undefined, self: number | null) {
    const given = trimToNull(uri);
    if (!given) return;
    await this.individualRepository.lockIdentifier(manager, given);
    const other = (await this.individualRepository.idsByIdentifier(manager, given)).find((id) => id !== self);
    if (other !== undefined) throw identifierTaken('individual_uri', 'individual', given, other);
  }

  private async loadOne(id: number, manager: EntityManager): Promise<Individual> {
    const [individual] = await this.load([id], manager);
    return individual;
  }

  /** Individuals with what a read needs, in the order of `ids`. */
  async load(ids: number[], manager?: EntityManager): Promise<Individual[]> {
    return this.individualRepository.load(ids, manager);
  }
}
