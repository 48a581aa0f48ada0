import { Type } from '@nestjs/common';

/**
 * The feature modules, imported by both the API and the worker so they share one module graph.
 * Processors are not in these modules: the worker module adds them.
 */
export const FEATURE_MODULES: Type[] = [];
