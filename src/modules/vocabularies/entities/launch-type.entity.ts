import { Entity } from 'typeorm';
import { VocabularyTerm } from './vocabulary-term';

/** The kind of vehicle (ROV, AUV, HOV…) launched from a platform to collect a sample. */
@Entity('launch_type')
export class LaunchType extends VocabularyTerm {}
