import { Module } from '@nestjs/common';
import { AssetsController } from './assets.controller';

/** The public pages' one stylesheet and one script (landing pages and account pages alike), at /assets/. */
@Module({ controllers: [AssetsController] })
export class WebAssetsModule {}
