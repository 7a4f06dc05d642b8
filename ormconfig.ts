// The TypeORM data source the migration CLI uses, built from the same environment as the service:
//   npm run build && npx typeorm migration:show -d dist/ormconfig.js
import { loadConfig } from './src/config/config.js';
import { createDataSource } from './src/database/data-source.js';

export default await createDataSource(loadConfig());
