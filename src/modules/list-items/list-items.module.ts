import { Module } from '@nestjs/common';
import { AccountabilitiesController } from './accountabilities.controller.js';
import { EvaluationCriteriaController } from './evaluation-criteria.controller.js';
import { ListItemsService } from './list-items.service.js';
import { ProjectScopesController } from './project-scopes.controller.js';
import { SupervisoryScopesController } from './supervisory-scopes.controller.js';

/** The four ListItem kinds: one table, one service, one explicit controller per kind. */
@Module({
  controllers: [AccountabilitiesController, EvaluationCriteriaController, SupervisoryScopesController, ProjectScopesController],
  providers: [ListItemsService],
  exports: [ListItemsService],
})
export class ListItemsModule {}
