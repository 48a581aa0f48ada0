import { Entity } from 'typeorm';
import { VocabularyTerm } from './vocabulary-term';

/** How a sample was collected. */
@Entity('sampling_method')
export class SamplingMethod extends VocabularyTerm {}
