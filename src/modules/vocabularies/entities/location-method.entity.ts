import { Entity } from 'typeorm';
import { VocabularyTerm } from './vocabulary-term';

/** How a sample's coordinates were determined. */
@Entity('location_method')
export class LocationMethod extends VocabularyTerm {}
