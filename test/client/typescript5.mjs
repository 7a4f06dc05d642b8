// Loaded with `node --import ./test/client/typescript5.mjs …`: openapi-typescript (peer
// dependency typescript ^5) runs on the pinned devDependency `typescript5` (typescript@5.9.3),
// while the project itself compiles with TypeScript 6. See typescript5-hooks.mjs.
import { register } from 'node:module';

register('./typescript5-hooks.mjs', import.meta.url);
