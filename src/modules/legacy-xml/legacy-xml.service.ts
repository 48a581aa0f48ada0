import { HttpStatus, Injectable } from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';
import { AuthenticatedUser } from '../../core/auth/authenticated-user';
import { AppConfig } from '../../core/config/app-config';
import { InjectAppConfig } from '../../core/config/app-config.token';
import { ApiError } from '../../core/http/api-error';
import { HttpExceptionFilter } from '../../core/http/http-exception.filter';
import { createValidationPipe } from '../../core/http/validation';
import { CreateSampleDto, SAMPLE_READ_ONLY_FIELDS, UpdateSampleDto } from '../samples';
import { SampleDto } from '../samples';
import { SampleWriter } from '../samples';
import {
  JsonValue,
  LegacySampleWrite,
  LegacyXmlOperation,
  elementsWithoutField,
  mapLegacySampleWrite,
} from './legacy-xml.mapper';
import { LegacyXmlElement, parseLegacySamplesDocument } from './legacy-xml.parser';
import { LegacySampleOutcome, bareIgsn, legacyErrorText } from './legacy-xml.responses';
import { mayUpload } from '../../core/auth/upload-permission.guard';

export type { LegacyXmlOperation } from './legacy-xml.mapper';

/** The longest legacy sample type (`sample_type > sample_subtype`) kept on a sample. */
const LEGACY_SAMPLE_TYPE_MAX = 512;

/** What a legacy document did, sample by sample, and the HTTP status of its results document. */
export interface LegacyXmlResults {
  readonly outcomes: LegacySampleOutcome[];
  readonly status: number;
}

interface SampleResult {
  readonly outcome: LegacySampleOutcome;
  /** The status the JSON API would have answered for this sample alone. */
  readonly status: number;
}

/**
 * The fields a JSON sample write accepts: those the global validation pipe's whitelist lets
 * through (every property with a validator), minus the read-only fields it silently drops.
 */
function sampleWriteFields(): ReadonlySet<string> {
  const readOnly = new Set(SAMPLE_READ_ONLY_FIELDS);
  const metadata = getMetadataStorage().getTargetValidationMetadatas(CreateSampleDto, '', true, false);
  return new Set(metadata.map((entry) => entry.propertyName).filter((name) => !readOnly.has(name)));
}

/**
 * Runs a legacy `<samples>` document through the JSON API's own path: each `<sample>` is mapped to
 * the JSON body, validated by the global validation pipe's rules into the same DTO, and registered or
 * updated by SampleWriter, in its own call (its own transaction) and in document order. One
 * refused sample does not stop the others.
 */
@Injectable()
export class LegacyXmlService {
  private readonly validation = createValidationPipe();
  /** Classifies a failure the way the JSON API would answer it (status, message, field errors); logs the unexpected. */
  private readonly failures = new HttpExceptionFilter();
  private readonly writeFields = sampleWriteFields();

  constructor(
    private readonly sampleWriter: SampleWriter,
    @InjectAppConfig() private readonly config: AppConfig,
  ) {}

  /**
   * Only users who may register samples submit legacy documents (also updates: the old service
   * served registrants). Checked before the body is parsed, so a document built to be expensive
   * costs nothing when anyone else sends it.
   */
  assertMaySubmit(user: AuthenticatedUser): void {
    if (!mayUpload(user)) {
      throw ApiError.forbidden('Submitting legacy XML documents requires upload permission.');
    }
  }

  /**
   * Parses the document once (throwing LegacyXmlError when it cannot be read) and processes every
   * sample. Status: 200 when at least one sample was saved; when none was, 400 like the old
   * service's InvalidSample document, or the 5xx status when a sample failed on a server error.
   */
  async process(xml: string, operation: LegacyXmlOperation, user: AuthenticatedUser): Promise<LegacyXmlResults> {
    const elements = parseLegacySamplesDocument(xml, { maxBytes: this.config.http.xmlLimit });
    const seenNames = new Set<string>();
    const results: SampleResult[] = [];
    for (const element of elements) results.push(await this.processSample(element, operation, user, seenNames));

    const outcomes = results.map((result) => result.outcome);
    if (outcomes.some((outcome) => outcome.status !== 'failed')) return { outcomes, status: HttpStatus.OK };
    const serverError = Math.max(...results.map((result) => result.status));
    return { outcomes, status: serverError >= 500 ? serverError : HttpStatus.BAD_REQUEST };
  }

  private async processSample(
    element: LegacyXmlElement,
    operation: LegacyXmlOperation,
    user: AuthenticatedUser,
    seenNames: Set<string>,
  ): Promise<SampleResult> {
    const write = mapLegacySampleWrite(element, operation);
    const body = write.body;
    const name = nameOf(body.name);
    const refuse = (error: string): SampleResult => ({
      outcome: { status: 'failed', name, error },
      status: HttpStatus.BAD_REQUEST,
    });

    const withoutField = elementsWithoutField(element, this.writeFields);
    if (withoutField.length > 0) {
      const list = withoutField.map((tag) => `<${tag}>`).join(', ');
      return refuse(`The sample record has no field for ${list}; remove ${withoutField.length > 1 ? 'them' : 'it'}.`);
    }
    if (name !== '') {
      if (seenNames.has(name)) {
        return refuse(`The name ${name} is used by an earlier sample of this document; names must be unique.`);
      }
      seenNames.add(name);
    }
    if (operation === 'update' && body.igsn === undefined) {
      return refuse('An update needs the <igsn> of the sample to change.');
    }
    if ((write.legacySampleType?.length ?? 0) > LEGACY_SAMPLE_TYPE_MAX) {
      return refuse(
        `<sample_type> and <sample_subtype> together must be at most ${LEGACY_SAMPLE_TYPE_MAX} characters.`,
      );
    }

    try {
      const saved = await this.save(withDraftRule(write, operation), operation, user);
      const warning = draftWarning(saved);
      return {
        outcome: {
          status: operation === 'register' ? 'saved' : 'updated',
          name: saved.name,
          igsn: saved.igsn,
          ...(warning === undefined ? {} : { warning }),
        },
        status: HttpStatus.OK,
      };
    } catch (error: unknown) {
      const { status, body: failure } = this.failures.resolve(error);
      return { outcome: { status: 'failed', name, error: legacyErrorText(failure.message, failure.errors) }, status };
    }
  }

  private async save(
    write: LegacySampleWrite,
    operation: LegacyXmlOperation,
    user: AuthenticatedUser,
  ): Promise<SampleDto> {
    const { body, legacySampleType, append } = write;
    if (operation === 'register') {
      const dto = (await this.validation.transform(body, {
        type: 'body',
        metatype: CreateSampleDto,
      })) as CreateSampleDto;
      return this.sampleWriter.register(dto, user, { channel: 'xml', legacySampleType });
    }
    const dto = (await this.validation.transform(body, { type: 'body', metatype: UpdateSampleDto })) as UpdateSampleDto;
    // processSample checked that the body has an igsn; validation accepts it only as one string.
    return this.sampleWriter.update(dto.igsn ?? '', dto, user, { channel: 'xml', legacySampleType, append });
  }
}

const COORDINATES = ['latitude', 'longitude'] as const;

/**
 * Coordinates were optional in v1. A register without either one is saved as a draft (the JSON API
 * publishes only with both); an update giving both publishes a draft, as the draft warning says.
 * A document's own `<is_draft>` is left for validation to judge.
 */
function withDraftRule(write: LegacySampleWrite, operation: LegacyXmlOperation): LegacySampleWrite {
  const { body } = write;
  if (body.is_draft !== undefined) return write;
  const given = COORDINATES.filter((field) => body[field] !== undefined);
  if (operation === 'register' && given.length === 0) return { ...write, body: { ...body, is_draft: true } };
  if (operation === 'update' && given.length === COORDINATES.length) {
    return { ...write, body: { ...body, is_draft: false } };
  }
  return write;
}

/** The `<warning>` of a sample left a draft for want of coordinates: what to add to publish it. */
function draftWarning(saved: SampleDto): string | undefined {
  if (saved.metadata_store_status !== 'draft') return undefined;
  const missing = COORDINATES.filter((field) => saved[field] === null);
  if (missing.length === 0) return undefined;
  const elements = missing.map((field) => `<${field}>`).join(' and ');
  return (
    `Sample [${saved.name}] was saved as a draft because it has no coordinates: ` +
    `send ${elements} for IGSN [${bareIgsn(saved.igsn)}] with update.php to publish it.`
  );
}

/** The sample's name for the response, also when it was repeated (an array validation will refuse). */
function nameOf(value: JsonValue | undefined): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.filter((item) => typeof item === 'string').join(', ');
  return '';
}
