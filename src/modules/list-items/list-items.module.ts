import { Module, OnModuleInit } from '@nestjs/common';
import { ByReference } from '../../database/by-reference.js';
import { AccountabilitiesController } from './accountabilities.controller.js';
import { EvaluationCriteriaController } from './evaluation-criteria.controller.js';
import { listItemsOf } from './list-item-cascade.js';
import { INDIVIDUAL_KINDS, PROJECT_SCOPE } from './list-item-kinds.js';
import { ListItemsService } from './list-items.service.js';
import { ProjectScopesController } from './project-scopes.controller.js';
import { SupervisoryScopesController } from './supervisory-scopes.controller.js';

/** The four ListItem kinds: one table, one service, one explicit controller per kind. */
@Module({
  controllers: [AccountabilitiesController, EvaluationCriteriaController, SupervisoryScopesController, ProjectScopesController],
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
