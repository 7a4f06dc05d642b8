import { Injectable, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { HotRoutes } from '../../common/http/hot-route.js';
import { AppValidationPipe } from '../../common/validation/app-validation.pipe.js';
import { GuidPipe } from '../../common/validation/ids.js';
import { IndividualListQuery } from './dto/individual.dto.js';
import { IndividualsController } from './individuals.controller.js';

/**
 * `GET /v4/individuals/{id}` and `GET /v4/individuals`, the reads integrators poll most, served as
 * hot reads (src/common/http/hot-route.ts, docs/performance.md): the controller's own handlers,
 * with the pipes their decorators name.
 */
@Injectable()
export class IndividualsHotReads implements OnModuleInit {
  private readonly guid = new GuidPipe();
  private readonly validation = new AppValidationPipe();

  constructor(
    private readonly hot: HotRoutes,
    private readonly moduleRef: ModuleRef,
  ) {}

  onModuleInit(): void {
    const controller = this.moduleRef.get(IndividualsController);
    this.hot.add({
      controller: IndividualsController,
      handler: 'get',
      path: /^\/v4\/individuals\/([^/]+)$/,
      answer: (ctx, [id]) => controller.get(ctx, this.guid.transform(id, { type: 'param', data: 'id' })),
    });
    this.hot.add({
      controller: IndividualsController,
      handler: 'list',
      path: /^\/v4\/individuals$/,
      answer: async (ctx, _params, query) =>
        controller.list(ctx, (await this.validation.transform(query, { type: 'query', metatype: IndividualListQuery })) as IndividualListQuery),
    });
  }
}
