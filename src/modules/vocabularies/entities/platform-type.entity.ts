import { Entity } from 'typeorm';
import { VocabularyTerm } from './vocabulary-term';

/** The kind of platform (ship, drill rig, aircraft…) a sample was collected from. */
@Entity('platform_type')
export class PlatformType extends VocabularyTerm {}
