import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { SAMPLE_FIELDS, SampleField, SampleFieldType, SampleVocabulary, VOCABULARY_ENDPOINTS } from '../../../samples';

const TYPES: SampleFieldType[] = ['text', 'number', 'integer', 'boolean', 'date', 'datetime', 'list', 'igsn'];
const VOCABULARIES = Object.keys(VOCABULARY_ENDPOINTS) as SampleVocabulary[];

/** One column of the field catalogue. */
@ApiSchema({ name: 'SampleField' })
export class SampleFieldDto {
  /** The JSON API's field name, or the key of a flattened nested field (`platform_label`); accepted as a header. */
  @ApiProperty({ example: 'geologic_age_verbatim' })
  key: string;

  /** The header in templates, uploads' error reports, CSV and xlsx exports. */
  @ApiProperty({ example: 'Geologic Age' })
  label: string;

  @ApiProperty({ enum: TYPES, example: 'text' })
  type: SampleFieldType;

  /** The reference list the values come from, if any. */
  @ApiProperty({ enum: VOCABULARIES, nullable: true, example: null })
  vocabulary: SampleVocabulary | null;

  /** Where that list can be read; null for closed lists (see the OpenAPI enums) and free platform names. */
  @ApiProperty({ type: String, nullable: true, example: null })
  vocabulary_endpoint: string | null;

  /** Other headers a batch upload accepts for this column. */
  @ApiProperty({ type: [String], example: ['Geological Age'] })
  aliases: string[];

  /** A column of the batch workbook: templates offer it, uploads read it, the xlsx export's Samples sheet has it. */
  @ApiProperty({ example: true })
  batch_column: boolean;

  /** In every template whatever the selection. */
  @ApiProperty({ example: false })
  always_in_template: boolean;

  /** What a batch column expects (the template header's note); null for export-only columns. */
  @ApiProperty({ type: String, nullable: true, example: null })
  help: string | null;
}

export class SampleFieldListResponse {
  @ApiProperty({ type: [SampleFieldDto] })
  data: SampleFieldDto[];
}

export function toSampleFieldDto(field: SampleField): SampleFieldDto {
  return {
    key: field.key,
    label: field.label,
    type: field.type,
    vocabulary: field.vocabulary ?? null,
    vocabulary_endpoint: field.vocabulary ? VOCABULARY_ENDPOINTS[field.vocabulary] : null,
    aliases: [...(field.aliases ?? [])],
    batch_column: field.batch === true,
    always_in_template: field.always === true,
    help: field.batch ? (field.help ?? '') || null : null,
  };
}

export const SAMPLE_FIELD_LIST: SampleFieldDto[] = SAMPLE_FIELDS.map(toSampleFieldDto);
