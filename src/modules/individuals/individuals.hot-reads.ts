import { Injectable, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { HotRoutes } from '../../common/http/hot-route.js';
import { AppValidationPipe } from '../../common/validation/app-validation.pipe.js';
import { GuidPipe } from '../../common/validation/ids.js';
import { IndividualListQuery } from './dto/individual.dto.js';
import { IndividualsController } from './individuals.controller.js';

const MAX_LIST_QUERIES = 256;

/**
 * `GET /v4/individuals/{id}` and `GET /v4/individuals`, the reads integrators poll most, served as
 * hot reads (src/common/http/hot-route.ts, docs/performance.md): the controller's own handlers,
 * their arguments put through the pipes their decorators name (GuidPipe, AppValidationPipe),
 * called here by hand: a pipe added to the route must be added here too.
 */
@Injectable()
export class IndividualsHotReads implements OnModuleInit {
  private readonly guid = new GuidPipe();
  private readonly validation = new AppValidationPipe();
  /**
   * The list's query, validated once per distinct query (validation costs ~0.1 ms, and pollers send
   * the same few queries): the result depends on the query alone, and is frozen. Failures are not
   * kept; they go to the route like any failing hot read.
   */
  private readonly listQueries = new Map<string, IndividualListQuery>();

  constructor(
    private readonly hot: HotRoutes,
    private readonly moduleRef: ModuleRef,
  ) {}

  private async listQuery(query: Record<string, unknown>): Promise<IndividualListQuery> {
    const key = JSON.stringify(query);
    let q = this.listQueries.get(key);
    if (!q) {
      q = Object.freeze((await this.validation.transform(query, { type: 'query', metatype: IndividualListQuery })) as IndividualListQuery);
      if (this.listQueries.size >= MAX_LIST_QUERIES) this.listQueries.clear();
      this.listQueries.set(key, q);
    }
    return q;
  }

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
      answer: async (ctx, _params, query) => controller.list(ctx, await this.listQuery(query)),
    });
  }
}
