import { Injectable } from '@nestjs/common';
import { Clock } from '../../core/clock';
import { AppConfig } from '../../core/config/app-config';
import { InjectAppConfig } from '../../core/config/app-config.token';
import { AccountsService } from '../accounts/accounts.service';
import { dataCiteAttributes } from '../metadata-formats/datacite.mapping';
import { dataCiteXmlElement } from '../metadata-formats/datacite.serializer';
import { REGISTRY_PUBLISHER } from '../metadata-formats/metadata-options';
import { sampleLandingUrl } from '../samples';
import { XmlElement, serializeXml } from '../metadata-formats/xml-writer';
import { IgsnService } from '../samples';
import { SampleAccessPolicy } from '../samples';
import { HarvestHeader, SampleHarvestRepository } from '../samples';
import { SampleMapper } from '../samples';
import { SampleRepository } from '../samples';
import { SamplePublicRepository } from '../samples';
import { oaiDcElement } from './oai-dc.mapping';
import {
  OAI_FORMATS,
  OaiError,
  OaiFormat,
  OaiListState,
  OaiRequest,
  decodeResumptionToken,
  encodeResumptionToken,
  oaiDatestamp,
  readDatestampRange,
  readFormat,
  readOaiRequest,
} from './oai-pmh.request';

const OAI_NAMESPACE = 'http://www.openarchives.org/OAI/2.0/';
/** Record identifiers: `doi:` and the sample's DOI (`doi:10.5072/IEABC0001`), stable whatever the host. */
const IDENTIFIER_SCHEME = 'doi:';

/** An element that is written even when empty (`<resumptionToken cursor="100"></resumptionToken>`). */
function bare(name: string, attributes: Record<string, string>, text = ''): XmlElement {
  return { name, attributes: Object.entries(attributes), children: [text] };
}

/**
 * The OAI-PMH 2.0 repository of public samples (`/oai`). Records are what the access policy's
 * harvestableCondition lets a harvester know of; deactivated samples that were public are deleted
 * records (deletedRecord `persistent`). Sets are registry codes. Every answer is a whole OAI-PMH
 * document, errors included (HTTP 200, as the protocol has it).
 */
@Injectable()
export class OaiPmhService {
  constructor(
    private readonly sampleHarvestRepository: SampleHarvestRepository,
    private readonly sampleRepository: SampleRepository,
    private readonly samplePublicRepository: SamplePublicRepository,
    private readonly mapper: SampleMapper,
    private readonly policy: SampleAccessPolicy,
    private readonly igsnService: IgsnService,
    private readonly accountsService: AccountsService,
    private readonly clock: Clock,
    @InjectAppConfig() private readonly config: AppConfig,
  ) {}

  /** The response document for the request's arguments; `baseUrl` is the registry's public base URL. */
  async respond(input: Record<string, unknown>, baseUrl: string): Promise<string> {
    const now = this.clock.now();
    const endpoint = `${baseUrl}/oai`;
    let request: OaiRequest | undefined;
    let body: XmlElement | XmlElement[];
    try {
      request = readOaiRequest(input);
      body = await this.run(request, baseUrl, now);
    } catch (error) {
      if (!(error instanceof OaiError)) throw error;
      body = bare('error', { code: error.code }, error.message);
      // badVerb and badArgument answers echo no arguments: they were not a valid request (§3.2).
      if (error.code === 'badVerb' || error.code === 'badArgument') request = undefined;
    }
    const echoed = request ? { verb: request.verb, ...request.args } : {};
    return serializeXml({
      name: 'OAI-PMH',
      attributes: [
        ['xmlns', OAI_NAMESPACE],
        ['xmlns:xsi', 'http://www.w3.org/2001/XMLSchema-instance'],
        ['xsi:schemaLocation', `${OAI_NAMESPACE} http://www.openarchives.org/OAI/2.0/OAI-PMH.xsd`],
      ],
      children: [bare('responseDate', {}, oaiDatestamp(now)), bare('request', echoed, endpoint), ...[body].flat()],
    });
  }

  private run(request: OaiRequest, baseUrl: string, now: Date): Promise<XmlElement> {
    switch (request.verb) {
      case 'Identify':
        return this.identify(baseUrl, now);
      case 'ListMetadataFormats':
        return this.listMetadataFormats(request.args.identifier, now);
      case 'ListSets':
        return this.listSets(request.args.resumptionToken);
      case 'GetRecord':
        return this.getRecord(request.args.identifier, readFormat(request.args.metadataPrefix), baseUrl, now);
      case 'ListIdentifiers':
      case 'ListRecords':
        return this.list(request, baseUrl, now);
    }
  }

  private async identify(baseUrl: string, now: Date): Promise<XmlElement> {
    const earliest = await this.sampleHarvestRepository.earliestDatestamp(this.policy.harvestableCondition('s', now));
    const { repositoryName, adminEmail } = this.config.harvesting;
    return {
      name: 'Identify',
      attributes: [],
      children: [
        bare('repositoryName', {}, repositoryName),
        bare('baseURL', {}, `${baseUrl}/oai`),
        bare('protocolVersion', {}, '2.0'),
        bare('adminEmail', {}, adminEmail),
        bare('earliestDatestamp', {}, oaiDatestamp(earliest ?? now)),
        bare('deletedRecord', {}, 'persistent'),
        bare('granularity', {}, 'YYYY-MM-DDThh:mm:ssZ'),
      ],
    };
  }

  private async listMetadataFormats(identifier: string | undefined, now: Date): Promise<XmlElement> {
    if (identifier !== undefined) await this.record(identifier, now);
    return {
      name: 'ListMetadataFormats',
      attributes: [],
      children: Object.entries(OAI_FORMATS).map(([prefix, format]) => ({
        name: 'metadataFormat',
        attributes: [],
        children: [
          bare('metadataPrefix', {}, prefix),
          bare('schema', {}, format.schema),
          bare('metadataNamespace', {}, format.namespace),
        ],
      })),
    };
  }

  /** Every registry code is a set; the list is short, so it is never split (a token is badResumptionToken). */
  private async listSets(resumptionToken: string | undefined): Promise<XmlElement> {
    if (resumptionToken !== undefined) {
      throw new OaiError('badResumptionToken', 'ListSets is never split; this resumption token is not valid.');
    }
    const codes = await this.accountsService.allRegistryCodes();
    if (!codes.length) throw new OaiError('noSetHierarchy', 'This repository has no sets yet.');
    return {
      name: 'ListSets',
      attributes: [],
      children: codes.map((code) => ({
        name: 'set',
        attributes: [],
        children: [bare('setSpec', {}, code), bare('setName', {}, `Registry code ${code}`)],
      })),
    };
  }

  /** The record an identifier names, or idDoesNotExist (also for samples a harvester may not know of). */
  private async record(identifier: string, now: Date): Promise<HarvestHeader> {
    const value = identifier.toLowerCase().startsWith(IDENTIFIER_SCHEME)
      ? identifier.slice(IDENTIFIER_SCHEME.length)
      : undefined;
    const suffix = value === undefined ? undefined : this.igsnService.parse(value);
    const header =
      suffix && (await this.sampleHarvestRepository.byIgsn(this.policy.harvestableCondition('s', now), suffix));
    if (!header) throw new OaiError('idDoesNotExist', `No record has the identifier "${identifier}".`);
    return header;
  }

  private async getRecord(identifier: string, format: OaiFormat, baseUrl: string, now: Date): Promise<XmlElement> {
    const header = await this.record(identifier, now);
    const [record] = await this.records([header], format, baseUrl, now);
    return { name: 'GetRecord', attributes: [], children: [record] };
  }

  private async list(request: OaiRequest, baseUrl: string, now: Date): Promise<XmlElement> {
    const state = this.listState(request.args);
    const range = readDatestampRange(state.from, state.until);
    const pageSize = this.config.harvesting.pageSize;
    const headers = await this.sampleHarvestRepository.page(
      this.policy.harvestableCondition('s', now),
      { set: state.set, from: range.from, before: range.before },
      state.cursor > 0 ? state.after : undefined,
      pageSize + 1,
    );
    // After a token, too: the records it promised may have stopped being public since.
    if (!headers.length) throw new OaiError('noRecordsMatch', 'No record matches the request.');
    const page = headers.slice(0, pageSize);
    const items =
      request.verb === 'ListRecords'
        ? await this.records(page, state.metadataPrefix, baseUrl, now)
        : page.map((header) => this.header(header));
    const split = headers.length > pageSize || state.cursor > 0;
    const last = page[page.length - 1];
    const token = !split
      ? undefined
      : bare(
          'resumptionToken',
          { cursor: String(state.cursor) },
          headers.length > pageSize
            ? encodeResumptionToken({
                ...state,
                after: { datestampKey: last.datestampKey, id: last.id },
                cursor: state.cursor + page.length,
              })
            : '',
        );
    return { name: request.verb, attributes: [], children: token ? [...items, token] : items };
  }

  /** The list request a verb's arguments or its resumption token describe; `cursor` 0 is the first page. */
  private listState(args: Record<string, string>): OaiListState {
    if (args.resumptionToken !== undefined) return decodeResumptionToken(args.resumptionToken);
    const metadataPrefix = readFormat(args.metadataPrefix);
    readDatestampRange(args.from, args.until);
    const set = args.set?.toUpperCase();
    return {
      metadataPrefix,
      set,
      from: args.from,
      until: args.until,
      after: { datestampKey: '', id: '0' },
      cursor: 0,
    };
  }

  private header(header: HarvestHeader): XmlElement {
    return {
      name: 'header',
      attributes: header.deleted ? [['status', 'deleted']] : [],
      children: [
        bare('identifier', {}, `${IDENTIFIER_SCHEME}${this.igsnService.toDoi(header.igsn)}`),
        bare('datestamp', {}, oaiDatestamp(header.datestamp)),
        bare('setSpec', {}, header.registryCode),
      ],
    };
  }

  /** Whole records: headers, and the metadata of those not deleted (their fields as the public sees them). */
  private async records(headers: HarvestHeader[], format: OaiFormat, baseUrl: string, now: Date) {
    const live = headers.filter((header) => !header.deleted).map((header) => header.id);
    const rows = new Map((await this.sampleRepository.byIds(live)).map((row) => [String(row.id), row]));
    const children = new Map<string, string[]>();
    if (format === 'oai_datacite') {
      for (const child of await this.samplePublicRepository.childrenOf(live, this.policy.publicCondition('s', now))) {
        children.set(child.parentId, [...(children.get(child.parentId) ?? []), this.igsnService.toDoi(child.igsn)]);
      }
    }
    return headers.map((header): XmlElement => {
      const row = rows.get(header.id);
      const metadata = row && this.metadata(row, format, baseUrl, children.get(header.id) ?? []);
      return {
        name: 'record',
        attributes: [],
        children: [
          this.header(header),
          ...(metadata ? [{ name: 'metadata', attributes: [], children: [metadata] }] : []),
        ],
      };
    });
  }

  private metadata(
    row: Parameters<SampleMapper['toDto']>[0],
    format: OaiFormat,
    baseUrl: string,
    children: string[],
  ): XmlElement | null {
    const sample = this.mapper.toDto(row, false);
    const attributes = dataCiteAttributes(sample, { publisher: REGISTRY_PUBLISHER, baseUrl }, { children });
    return format === 'oai_datacite'
      ? dataCiteXmlElement(attributes)
      : oaiDcElement(attributes, sampleLandingUrl(baseUrl, sample.igsn));
  }
}
