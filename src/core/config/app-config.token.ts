import { Inject } from '@nestjs/common';

export const APP_CONFIG = Symbol('APP_CONFIG');

/** Parameter decorator injecting the typed AppConfig. */
export const InjectAppConfig = (): ParameterDecorator => Inject(APP_CONFIG);
