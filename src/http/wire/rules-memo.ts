import { getMetadataStorage } from 'class-validator';

type Storage = ReturnType<typeof getMetadataStorage>;
type Lookup = Storage['getTargetValidationMetadatas'];
type Rules = ReturnType<Lookup>;

const INSTALLED = Symbol.for('pms:validation-rules-memo');

/**
 * Remembers the validation rules of each DTO class (docs/performance.md, "Query validation").
 *
 * class-validator looks a class's rules up anew on every validation, testing every decorated class
 * of the application for being one of its ancestors (typestack/class-validator#2686): about 20 µs
 * of a `PUT /v4/goals/{id}`, whose body is validated on every request. A class's rules are fixed
 * once it and its ancestors are defined, so the lookup is kept per class and per options; a rule
 * registered afterwards (a class defined after the first validation) forgets everything kept, so
 * the answer is always the one class-validator would give. Installed once per process, on the
 * storage every copy of class-validator shares.
 */
export function rememberValidationRules(storage: Storage = getMetadataStorage()): void {
  const marked = storage as Storage & { [INSTALLED]?: true };
  if (marked[INSTALLED]) return;
  marked[INSTALLED] = true;
  const lookup = storage.getTargetValidationMetadatas.bind(storage);
  const add = storage.addValidationMetadata.bind(storage);
  let kept = new WeakMap<Function, Map<string, Rules>>();
  storage.addValidationMetadata = (metadata) => {
    kept = new WeakMap();
    add(metadata);
  };
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    const key = `${schema}\u0000${always}\u0000${strictGroups}\u0000${groups?.join('\u0001') ?? ''}`;
    let byOptions = kept.get(target);
    if (!byOptions) kept.set(target, (byOptions = new Map()));
    let rules = byOptions.get(key);
    if (!rules) byOptions.set(key, (rules = lookup(target, schema, always, strictGroups, groups)));
    return rules;
  };
}
