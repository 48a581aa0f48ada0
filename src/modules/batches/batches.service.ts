import { HttpStatus, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Request } from 'express';
import { DataSource, EntityManager } from 'typeorm';
import { AuthenticatedUser } from '../../core/auth/authenticated-user';
import { Clock } from '../../core/clock';
import { AppConfig } from '../../core/config/app-config';
import { InjectAppConfig } from '../../core/config/app-config.token';
import { ApiError } from '../../core/http/api-error';
import { uploadFilename } from '../../core/http/upload-filename';
import { Paginated, PageRequest, paginate } from '../../core/http/pagination';
import { AccountsService } from '../accounts/accounts.service';
import { BackgroundJob, JOB_STATUSES } from '../background-jobs/background-job.entity';
import { BackgroundJobsService } from '../background-jobs/background-jobs.service';
import { FileWithContent, FilesService } from '../files/files.service';
import { BatchHistoryFilter, BatchHistoryRepository, BatchHistoryRow } from './batch-history.repository';
import { XLSX_CONTENT_TYPE } from './batch-registration.service';
import { BatchHistoryDto, BatchQueued } from './dto/batch.dto';
import { BatchTemplatesService } from './templates/batch-templates.service';
import { WorkbookLayout, inspectUpload } from './xlsx-inspection';
import { mayUpload } from '../../core/auth/upload-permission.guard';

export interface UploadedSpreadsheet {
  originalname: string;
  buffer: Buffer;
  size: number;
}

export function toBatchDto(row: BatchHistoryRow): BatchHistoryDto {
  return {
    id: row.id,
    batch_type: row.batch_type,
    registry_code: row.registry_code,
    sample_count: row.sample_count,
    upload_time: row.upload_time.toISOString(),
    processed_time: row.processed_time?.toISOString() ?? null,
    filename: row.filename,
    object_type: row.object_type,
    uploaded_by_name: row.uploaded_by_name,
    team_owner_name: row.team_owner_name,
    owner_name: row.owner_name,
    user_owner_id: row.user_owner_id,
    team_owner_id: row.team_owner_id,
    job_id: row.job_id,
    status: row.status,
    save_as_draft: row.save_as_draft,
  };
}

function formBoolean(value: unknown, field: string): boolean {
  if (value === undefined || value === '') return false;
  if (typeof value === 'string' && ['true', '1', 'yes', 'on'].includes(value.toLowerCase())) return true;
  if (typeof value === 'string' && ['false', '0', 'no', 'off'].includes(value.toLowerCase())) return false;
  throw ApiError.invalidField(field, 'must be true or false');
}

/**
 * Batch uploads and history. An upload is checked (type, size, structure, storage quota) before
 * anything is stored; the file, the batch row and the job are written in one transaction and the
 * job is enqueued after commit.
 */
@Injectable()
export class BatchesService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly batchHistoryRepository: BatchHistoryRepository,
    private readonly backgroundJobsService: BackgroundJobsService,
    private readonly filesService: FilesService,
    private readonly accountsService: AccountsService,
    private readonly batchTemplatesService: BatchTemplatesService,
    private readonly clock: Clock,
    @InjectAppConfig() private readonly config: AppConfig,
  ) {}

  async upload(
    file: UploadedSpreadsheet | undefined,
    form: Record<string, unknown>,
    user: AuthenticatedUser,
    idempotencyKey?: string,
  ): Promise<BatchQueued> {
    // The controller's UploadPermissionGuard refused strangers before the body was read; kept for other callers.
    if (!mayUpload(user)) throw ApiError.forbidden('Uploading batches requires upload permission.');
    if (!file) throw ApiError.invalidField('file', 'is required (multipart field "file")');
    const known = ['save_as_draft', 'template_id', 'registry_code', 'object_type', 'sesar_code', 'allow_duplicate'];
    for (const key of Object.keys(form)) {
      if (!known.includes(key))
        throw ApiError.badRequest(`Unknown form field ${key}.`, { [key]: ['This field is not allowed.'] });
    }
    const saveAsDraft = formBoolean(form.save_as_draft, 'save_as_draft');
    const allowDuplicate = formBoolean(form.allow_duplicate, 'allow_duplicate');
    let templateId: number | null = null;
    if (form.template_id !== undefined && form.template_id !== '') {
      if (typeof form.template_id !== 'string' || !/^\d{1,9}$/.test(form.template_id)) {
        throw ApiError.invalidField('template_id', 'must be a template id');
      }
      templateId = Number(form.template_id);
      // Another user's template answers exactly as one that does not exist.
      if (!(await this.batchTemplatesService.isVisible(templateId, user))) {
        throw ApiError.badRequest('Batch template not found.', { template_id: ['not found'] });
      }
    }
    const text = (key: string) => (typeof form[key] === 'string' && form[key] !== '' ? form[key].trim() : undefined);
    const registryCode = (text('registry_code') ?? text('sesar_code'))?.toUpperCase();
    const objectType = text('object_type');
    if (registryCode && !(await this.accountsService.canUseRegistryCode(user, registryCode))) {
      throw ApiError.forbidden(`You may not register samples under registry code ${registryCode}.`);
    }
    const filename = uploadFilename(file.originalname);
    const { job } = await this.backgroundJobsService.createOnce(
      user.userId,
      'batch_registration',
      idempotencyKey,
      async () => {
        const inspected = await inspectUpload(file.buffer, filename, this.config.batches.maxInflatedBytes);
        return this.store(file, filename, user, inspected, idempotencyKey, {
          allowDuplicate,
          saveAsDraft,
          templateId,
          registryCode,
          objectType,
        });
      },
    );
    const stored = typeof job.payload.filename === 'string' ? job.payload.filename : filename;
    return { job_id: job.id, filename: stored, status: job.status };
  }

  /** The file, the batch row and its job, in one transaction, with the upload charged to the quota. */
  private async store(
    file: UploadedSpreadsheet,
    filename: string,
    user: AuthenticatedUser,
    inspected: WorkbookLayout,
    idempotencyKey: string | undefined,
    options: {
      allowDuplicate: boolean;
      saveAsDraft: boolean;
      templateId: number | null;
      registryCode?: string;
      objectType?: string;
    },
  ): Promise<BackgroundJob> {
    const { saveAsDraft, templateId, registryCode, objectType } = options;
    // Web Crypto hashes on the thread pool: a 50 MB upload does not hold up the event loop.
    const contentSha256 = Buffer.from(await crypto.subtle.digest('SHA-256', file.buffer)).toString('hex');
    return this.dataSource.transaction(async (manager) => {
      if (!options.allowDuplicate) await this.refuseDuplicate(manager, user.userId, contentSha256);
      const left = await this.filesService.chargeStorage(manager, user.userId, file.size);
      if (left !== undefined) {
        throw new ApiError(
          HttpStatus.PAYLOAD_TOO_LARGE,
          `This upload needs ${file.size} bytes but only ${left} bytes of your storage are left.`,
          { file: [`exceeds your remaining storage of ${left} bytes`] },
        );
      }
      const stored = await this.filesService.store(
        { filename, contentType: XLSX_CONTENT_TYPE, content: file.buffer, ownerUserId: user.userId },
        manager,
      );
      const owner = registryCode ? await this.accountsService.registryCodeOwner(registryCode, manager) : undefined;
      const created = await this.backgroundJobsService.create(manager, {
        jobType: 'batch_registration',
        userId: user.userId,
        payload: {
          filename,
          save_as_draft: saveAsDraft,
          template_id: templateId,
          registry_code: registryCode ?? null,
          object_type: objectType ?? null,
        },
        totalCount: inspected.declaredRows ?? null,
        idempotencyKey,
      });
      const batch = await this.batchHistoryRepository.insert(manager, {
        batchType: 'registration',
        registryCode: registryCode ?? null,
        uploadTime: this.clock.now(),
        filename,
        saveAsDraft,
        uploadedById: user.userId,
        userOwnerId: user.userId,
        teamOwnerId: owner?.teamOwnerId ?? null,
        templateId,
        fileId: stored.id,
        jobId: created.id,
        contentSha256,
      });
      created.payload = { ...created.payload, batch_id: batch.id };
      await this.backgroundJobsService.setPayload(manager, created.id, created.payload);
      return created;
    });
  }

  /**
   * 409 when this uploader already sent the same workbook (same bytes) in a batch that is queued,
   * running or registered; a failed or cancelled batch does not count. Concurrent uploads of one
   * file by one user take turns on an advisory lock, so both cannot pass.
   */
  private async refuseDuplicate(manager: EntityManager, userId: number, contentSha256: string): Promise<void> {
    const earlier = await this.batchHistoryRepository.lockAndFindEarlierUpload(manager, userId, contentSha256);
    if (!earlier) return;
    throw ApiError.conflict(
      `This workbook was already uploaded as batch ${earlier.id} (${earlier.filename ?? 'no file name'}, ` +
        `${earlier.upload_time.toISOString()}); send allow_duplicate=true to register it again.`,
      { file: [`is the same workbook as batch ${earlier.id}`] },
    );
  }

  /** Batches the caller may see: their own and their teams' (staff and admins: all). */
  private viewerId(user: AuthenticatedUser): number | undefined {
    return user.isStaff || user.isAdmin ? undefined : user.userId;
  }

  async list(
    req: Request,
    query: Record<string, unknown>,
    page: PageRequest,
    user: AuthenticatedUser,
    onlyCompleted: boolean,
  ): Promise<Paginated<BatchHistoryDto>> {
    const filter: BatchHistoryFilter = { viewerId: this.viewerId(user) };
    const status = onlyCompleted ? 'completed' : query.status;
    if (status !== undefined && status !== '') {
      if (typeof status !== 'string' || !(JOB_STATUSES as readonly string[]).includes(status)) {
        throw ApiError.invalidField('status', `must be one of ${JOB_STATUSES.join(', ')}`);
      }
      filter.status = status;
    }
    if (query.registry_code !== undefined && query.registry_code !== '') {
      if (typeof query.registry_code !== 'string') throw ApiError.invalidField('registry_code', 'give it once');
      filter.registryCode = query.registry_code.trim().toUpperCase();
    }
    const { rows, count } = await this.batchHistoryRepository.page(filter, {
      limit: page.pageSize,
      offset: page.offset,
    });
    return paginate(req, page, count, rows.map(toBatchDto));
  }

  /** The batch if the caller may see it; 404 otherwise. */
  async requireVisible(idValue: string, user: AuthenticatedUser): Promise<BatchHistoryDto> {
    if (!/^\d{1,9}$/.test(idValue)) throw ApiError.notFound('Batch not found.');
    const row = await this.batchHistoryRepository.findVisible(Number(idValue), this.viewerId(user));
    if (!row) throw ApiError.notFound('Batch not found.');
    return toBatchDto(row);
  }

  async spreadsheet(idValue: string, user: AuthenticatedUser): Promise<FileWithContent> {
    const batch = await this.requireVisible(idValue, user);
    const fileId = await this.batchHistoryRepository.fileId(batch.id);
    const file = fileId ? await this.filesService.read(fileId, this.clock.now()) : undefined;
    if (!file) throw ApiError.notFound('The uploaded spreadsheet of this batch is no longer available.');
    return file;
  }
}
