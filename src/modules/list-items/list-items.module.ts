import { Module, OnModuleInit } from '@nestjs/common';
import { ByReference } from '../../database/by-reference.js';
import { listItemsOf } from './list-item-cascade.js';
import { LIST_ITEM_CONTROLLERS } from './list-items.controller.js';
import { INDIVIDUAL_KINDS, PROJECT_SCOPE } from './list-item-kinds.js';
import { ListItemsService } from './list-items.service.js';

/** The four ListItem kinds: one table, one service, one controller per kind from one route declaration. */
@Module({
  controllers: [...LIST_ITEM_CONTROLLERS],
  providers: [ListItemsService],
  exports: [ListItemsService],
})
export class ListItemsModule implements OnModuleInit {
  constructor(private readonly byReference: ByReference) {}

  /** An individual's accountabilities, criteria and supervisory scopes, a project's scopes, follow their owner. */
  onModuleInit(): void {
    this.byReference.register('individual', listItemsOf(INDIVIDUAL_KINDS));
    this.byReference.register('project', listItemsOf([PROJECT_SCOPE.kind]));
  }
}
