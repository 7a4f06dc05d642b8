// One group of e2e spec files run as one Jest test file: test/groups/groups.mjs.
import { runGroup } from './run-group.js';

await runGroup(import.meta.url);
