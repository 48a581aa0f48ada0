import { Controller, Get, Param, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../../core/auth/public.decorator';
import { PUBLIC_PAGES_MOUNT } from '../../core/http/configure-http-app';
import { SCRIPT_PATH, SITE_SCRIPT, SITE_STYLESHEET, STYLESHEET_PATH } from './site-assets';

const ASSETS: Record<string, { type: string; body: string }> = {
  [STYLESHEET_PATH.split('/').pop() as string]: { type: 'text/css; charset=utf-8', body: SITE_STYLESHEET },
  [SCRIPT_PATH.split('/').pop() as string]: { type: 'text/javascript; charset=utf-8', body: SITE_SCRIPT },
};

/** `/assets/site-{hash}.css|js`: the pages' one stylesheet and script, cached for a year (a change is a new name). */
@ApiExcludeController()
@Public()
@Controller(PUBLIC_PAGES_MOUNT)
export class AssetsController {
  @Get('assets/:file')
  asset(@Param('file') file: string, @Res() res: Response): void {
    const asset = Object.hasOwn(ASSETS, file) ? ASSETS[file] : undefined;
    if (!asset) {
      res.status(404).type('text/plain').send('Not found.\n');
      return;
    }
    res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    res.type(asset.type).send(asset.body);
  }
}
