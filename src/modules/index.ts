import { AuthModule } from './auth/auth.module.js';
import { HealthModule } from './health/health.module.js';
import { PeriodsModule } from './periods/periods.module.js';
import { PermissionsModule } from './permissions/permissions.module.js';
import { SitesModule } from './sites/sites.module.js';

/** Every feature module. A new resource module is added here (and its entities in database/registry.ts). */
export const FEATURE_MODULES = [AuthModule, SitesModule, HealthModule, PeriodsModule, PermissionsModule];
